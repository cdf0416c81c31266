#!/usr/bin/env bash
# bench/identity/cmp_dirs.sh BASE_OUTROOT NEW_OUTROOT: cmp of flows.csv and ports.csv in every
# run directory of BASE_OUTROOT that NEW_OUTROOT also has (matrix.sh leaves none for a run
# that timed out). Exit 1 on any difference.
A=$1; O=$2; rc=0; n=0
for d in "$A"/*/; do
  d=$(basename "$d")
  for f in flows.csv ports.csv; do
    [ -f "$A/$d/$f" ] && [ -f "$O/$d/$f" ] || continue
    n=$((n + 1))
    cmp -s "$A/$d/$f" "$O/$d/$f" || { echo "DIFF $d/$f"; rc=1; }
  done
done
echo "$n files compared"
exit $rc
