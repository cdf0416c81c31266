#!/usr/bin/env bash
# bench/identity/flow_priority.sh BINARY OUTROOT: the flow-level priority policies at 1024
# hosts (flow_priority.toml): SRPT, PDQ with and without deadlines, with flow aging, M-PDQ,
# MERP, D3 with and without deadlines and quenching, and SRPT, PDQ and D3 with flows aborted
# at their deadlines. About 4 s (15 s before SRPT's and PDQ's repaired pass). Compare two
# OUTROOTs with cmp_dirs.sh.
set -e
B=$1; O=$2; S="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/flow_priority.toml"
DL="--set workload.deadline.dist=uniform --set workload.deadline.min_ms=1 --set workload.deadline.max_ms=20"
mkdir -p "$O"
run() { local name=$1; shift; "$B" "$S" --out "$O/$name" "$@" >/dev/null; }
run srpt
run pdq --set transport.protocol=pdq
run pdq_dl --set transport.protocol=pdq $DL
run pdq_aging --set transport.protocol=pdq --set transport.pdq_aging_rate=4 \
    --set workload.load=0.7 --set workload.flows=4000
run mpdq --set transport.protocol=mpdq --set workload.flows=4000
run merp --set transport.protocol=merp --set workload.flows=3000 --set workload.load=0.3
run d3 --set transport.protocol=d3 --set workload.flows=4000
run d3_dl --set transport.protocol=d3 --set workload.flows=4000 $DL
run d3_dl_noquench --set transport.protocol=d3 --set transport.d3_quench=false \
    --set workload.flows=4000 $DL
ABORT="--set workload.flows=3000 --set workload.deadline.dist=uniform \
    --set workload.deadline.min_ms=0.5 --set workload.deadline.max_ms=5 \
    --set workload.abort_at_deadline=true"
for t in pfabric pdq d3; do
  run "abort_$t" --set transport.protocol=$t $ABORT
done
