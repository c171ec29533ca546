#!/usr/bin/env bash
# Alternating timings of several solver binaries on the same arguments: each round runs every
# binary once, one process at a time, so a drift of the machine's speed hits all alike.
# Usage: docs/bench/ab.sh ROUNDS "ARGS" BIN...   e.g.
#   docs/bench/ab.sh 3 "6 4 empty 512" /tmp/solve_start-old target/release/examples/solve_start
# (BIN: copies of the `solve_start` example of kalah-solver, which prints "nodes N ... time Ts").
set -euo pipefail
rounds=$1
args=$2
shift 2
out=$(mktemp -d)
for r in $(seq "$rounds"); do
  for b in "$@"; do
    # shellcheck disable=SC2086
    "$b" $args 2>/dev/null | sed -E 's/.*nodes ([0-9]+).*time ([0-9.]+)s.*/\1 \2/' >>"$out/$(basename "$b").$r"
  done
done
for b in "$@"; do
  n=$(basename "$b")
  echo "$n: nodes $(head -1 "$out/$n.1" | cut -d' ' -f1) times $(cat "$out/$n".* | cut -d' ' -f2 | sort -n | tr '\n' ' ')"
done
rm -r "$out"
