#!/bin/bash
# Kalah(6,4) from the start without endgame databases, two `kalah` binaries alternating, one
# process at a time: two rounds on one thread, then one on two threads, for each capture rule.
# Usage: docs/bench/solve64.sh BEFORE_BINARY AFTER_BINARY
# Build a "before" binary from an older commit, e.g.:
#   git archive <commit> | tar -x -C /tmp/before && cd /tmp/before && cargo build --release -p kalah-cli
set -eu
before=$1
after=$2
for cap in empty standard; do
  for round in 1 2; do
    for b in "$before" "$after"; do
      /usr/bin/time -f "$b $cap one thread, round $round: %e s wall, %U s user, %M KB" \
        "$b" solve --houses 6 --seeds 4 --capture "$cap" --no-egdb --threads 1 --json
    done
  done
done
for cap in empty standard; do
  for b in "$before" "$after"; do
    /usr/bin/time -f "$b $cap two threads: %e s wall, %U s user" \
      "$b" solve --houses 6 --seeds 4 --capture "$cap" --no-egdb --json
  done
done
