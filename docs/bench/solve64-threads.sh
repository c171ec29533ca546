#!/bin/bash
# Kalah(6,4) from the start without endgame databases on two threads (the default of
# `kalah solve` on this 2-core machine), the given `kalah` binaries alternating, one process at
# a time: three rounds with empty capture, two with standard capture. Prints the value, the
# nodes of all threads, and the times.
# Usage: docs/bench/solve64-threads.sh BINARY...
set -eu
for cap in empty standard; do
  rounds=3
  [ "$cap" = standard ] && rounds=2
  for r in $(seq "$rounds"); do
    for b in "$@"; do
      out=$( { /usr/bin/time -f "%e s wall %U s user" "$b" solve --houses 6 --seeds 4 --capture "$cap" --no-egdb --json; } 2>&1 )
      echo "$b $cap round $r: $(echo "$out" | head -1 | python3 -c 'import sys,json; j=json.load(sys.stdin); print("value", j["value"], "nodes", j["nodes"])') $(echo "$out" | tail -1)"
    done
  done
done
