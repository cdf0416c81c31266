#!/usr/bin/env bash
# bench/identity/cmp_all.sh BASE_OUTROOT NEW_OUTROOT: cmp of flows.csv, ports.csv and the
# summary less wall time, per scenario of run_all.sh. Exit 1 on any difference.
A=$1; O=$2; rc=0
for d in fattree fattree_newreno dumbbell lossy_rps lossy_tcp; do
  for f in flows.csv ports.csv summary.nowall.json; do
    if cmp -s "$A/$d/$f" "$O/$d/$f"; then echo "same $d/$f"; else echo "DIFF $d/$f"; rc=1; fi
  done
done
exit $rc
