#!/usr/bin/env bash
# bench/identity/wall.sh BASE_BINARY NEW_BINARY SCENARIO RUNS: alternates the two binaries,
# prints wall and user time, GNU time's max RSS, the 1-minute load, packets and events per second.
A=$1; B=$2; S=$3; N=$4
for i in $(seq 1 "$N"); do
  for b in "$A" "$B"; do
    o=$(mktemp -d)
    /usr/bin/time -f "%e %U %M" -o "$o.time" "$b" "$S" --out "$o/out" >/dev/null 2>&1
    ld=$(cut -d' ' -f1 /proc/loadavg)
    python3 - "$o" "$b" "$i" "$ld" <<'PY'
import json, sys
o, b, i, ld = sys.argv[1:]
s = json.load(open(o + "/out/summary.json")); w, u, m = open(o + ".time").read().split()
tx, ev = s["packets"]["link_transmissions"], s["run"]["events"]
print(f"{b} run {i} wall {w} user {u} maxrss_kb {m} load1 {ld} tx {tx} events {ev} "
      f"pkts/s {tx / float(w) / 1e6:.2f}M ev/s {ev / float(w) / 1e6:.2f}M")
PY
    rm -rf "$o" "$o.time"
  done
done
