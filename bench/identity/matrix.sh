#!/usr/bin/env bash
# bench/identity/matrix.sh BINARY OUTROOT: examples/*.toml and transports x path choices on
# matrix_base.toml (k = 4 fat-tree, 80-packet buffers, 150 flows at 80 % load; every transport
# with a header of its own among them), 20 s timeout each (runs that time out leave no output
# and are not compared; the transports that keep per-flow state at switches under the path
# choices that move a flow are refused and print "fail"). Compare two OUTROOTs with
# cmp_dirs.sh.
B=$1; O=$2; mkdir -p "$O"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; REPO="$(cd "$HERE/../.." && pwd)"
for f in "$REPO"/examples/*.toml; do n=$(basename "$f" .toml)
  (cd "$REPO" && "$B" "$f" --out "$O/ex_$n" >/dev/null 2>"$O/ex_$n.err") || echo "fail $n"
done
for t in tcp dctcp d2tcp pfabric pdq mpdq rcp d3 merp pace mcp; do
  for lb in ecmp rps drb presto letflow conga drill; do
    timeout 20 "$B" "$HERE/matrix_base.toml" --out "$O/m_${t}_$lb" --set transport.protocol=$t \
      --set routing.lb=$lb >/dev/null 2>"$O/m_${t}_$lb.err" || echo "fail or timeout: $t $lb"
  done
done
