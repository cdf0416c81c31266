#!/usr/bin/env bash
# bench/identity/flow_all.sh BINARY OUTROOT: the flow-level engine's identity runs, every policy
# on flow_base.toml (k = 8 fat-tree), M-PDQ on BCube(4,2) with bcube_paths, max-min on a
# Jellyfish (flow_jellyfish.toml). Compare two OUTROOTs with cmp_dirs.sh.
set -e
B=$1; O=$2; HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; S="$HERE/flow_base.toml"
mkdir -p "$O"
for t in dctcp pfabric pdq mpdq d3 pace merp; do
  "$B" "$S" --out "$O/ft_$t" --set transport.protocol=$t >/dev/null
done
"$B" "$S" --out "$O/bcube_mpdq" --set transport.protocol=mpdq --set topology.kind=bcube \
    --set topology.n=4 --set topology.k=2 --set topology.link_gbps=1 \
    --set routing.lb=bcube_paths --set workload.load=0.4 --set workload.flows=2000 >/dev/null
"$B" "$HERE/flow_jellyfish.toml" --out "$O/jellyfish_dctcp" >/dev/null
