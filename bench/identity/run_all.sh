#!/usr/bin/env bash
# Runs the output-identity scenarios with one binary (issue 17, RESULTS.md "Scale").
#   bench/identity/run_all.sh BINARY OUTROOT
# Then compare two OUTROOTs with cmp_all.sh. summary.nowall.json = summary.json less run.wall_s.
set -e
B=$1; O=$2; S="$(cd "$(dirname "${BASH_SOURCE[0]}")/../scenarios" && pwd)"
mkdir -p "$O"
"$B" "$S/fattree.toml" --out "$O/fattree" >/dev/null
"$B" "$S/fattree_newreno.toml" --out "$O/fattree_newreno" >/dev/null
"$B" "$S/dumbbell.toml" --out "$O/dumbbell" >/dev/null
# lossy: small buffers, high load, 400 flows; per-packet spraying (DCTCP) and NewReno
"$B" "$S/fattree.toml" --out "$O/lossy_rps" --set workload.flows=400 --set topology.buffer_pkts=30 \
    --set topology.ecn_k_pkts=20 --set workload.load=0.8 --set routing.lb=rps >/dev/null
"$B" "$S/fattree_newreno.toml" --out "$O/lossy_tcp" --set workload.flows=400 \
    --set topology.buffer_pkts=30 --set workload.load=0.8 >/dev/null
for d in "$O"/*/; do python3 - "$d" <<'PY'
import json, sys
d = sys.argv[1]
def strip(x):
    return {k: strip(v) for k, v in x.items() if k != "wall_s"} if isinstance(x, dict) else x
json.dump(strip(json.load(open(d + "/summary.json"))), open(d + "/summary.nowall.json", "w"),
          indent=1, sort_keys=True)
PY
done
