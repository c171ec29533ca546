//! Perft vectors (`tests/data/perft.txt`): kalah-core's `perft`, `perft_full` and `divide`
//! against counts produced by an independent naive implementation (`tests/common/naive.rs`).
//!
//! The data file was produced by `cargo test -p kalah-core --test perft_vectors --
//! --ignored regenerate` (the naive implementation only, from the case list `CASES` below); the
//! default test recomputes every count with the naive implementation and with kalah-core, so a
//! regression in either shows.

mod common;

use common::naive::Naive;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kalah_core::{divide, perft, perft_full, perft_stoppable, Position, Rules};

/// (rules, position, deepest depth). Every depth 1..=deepest goes into the data file.
const CASES: &[(&str, &str, u32)] = &[
    // Kalah(6,4), standard rules.
    ("", "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S", 8),
    // Each end and leftover variant from the start.
    ("capture=empty", "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S", 7),
    (
        "end=mover-blocked leftovers=emptier",
        "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S",
        7,
    ),
    (
        "end=mover-blocked leftovers=nobody capture=empty",
        "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S",
        7,
    ),
    // Opening rules: pie, Manchester, both.
    ("pie=on", "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S opening", 7),
    (
        "first-move-extra-turn=off",
        "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S opening",
        7,
    ),
    (
        "pie=on first-move-extra-turn=off",
        "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S opening",
        7,
    ),
    ("pie=on", "4,4,4,4,4,4,0,4,4,4,4,4,4,0 N pie", 6),
    // Majority end near the threshold (22 of 48 seeds), under each leftover rule.
    ("majority-end=on", "1,0,3,0,2,1,22,2,1,0,0,3,1,12 S", 8),
    (
        "majority-end=on leftovers=emptier",
        "1,0,3,0,2,1,22,2,1,0,0,3,1,12 S",
        8,
    ),
    (
        "majority-end=on leftovers=nobody end=mover-blocked",
        "1,0,3,0,2,1,22,2,1,0,0,3,1,12 S",
        8,
    ),
    // Endgames under each leftover and end rule.
    ("", "0,0,0,1,0,2,20,1,0,2,0,0,0,22 S", 9),
    ("leftovers=emptier", "0,0,0,1,0,2,20,1,0,2,0,0,0,22 S", 9),
    ("leftovers=nobody", "0,0,0,1,0,2,20,1,0,2,0,0,0,22 S", 9),
    (
        "end=mover-blocked leftovers=emptier",
        "0,0,0,1,0,2,20,1,0,2,0,0,0,22 S",
        9,
    ),
    (
        "end=mover-blocked capture=empty",
        "0,0,0,1,0,2,20,1,0,2,0,0,0,22 N",
        9,
    ),
    // A midgame position, North to move.
    ("", "0,5,6,2,1,8,10,3,0,7,1,2,4,9 N", 8),
    (
        "capture=empty end=mover-blocked leftovers=emptier",
        "0,5,6,2,1,8,10,3,0,7,1,2,4,9 N",
        7,
    ),
    // 13 seeds: a lap of 2m+1 ending in the emptied origin house.
    ("", "13,0,0,0,0,0,0,1,1,1,1,1,1,0 S", 6),
    // Small and large boards.
    ("", "1,0,1,0 S", 6),
    ("capture=empty", "5,0,5,0 S", 10),
    ("", "3,3,0,3,3,0 S", 12),
    (
        "capture=empty end=mover-blocked leftovers=emptier",
        "3,3,3,0,3,3,3,0 S",
        10,
    ),
    (
        "",
        "10,10,10,10,10,10,10,10,10,10,10,10,0,10,10,10,10,10,10,10,10,10,10,10,10,0 S",
        4,
    ),
    // FairKalah layout, mirrored.
    ("", "4,4,5,4,3,4,0,4,3,4,5,4,4,0 S", 7),
    // Laps: Kalah(4,20), and 255 seeds on Kalah(3,n).
    ("", "20,20,20,20,0,20,20,20,20,0 S", 5),
    ("capture=empty", "42,42,42,3,42,42,42,0 S", 5),
    ("", "100,0,100,0 S", 8),
];

fn data_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/perft.txt")
}

#[test]
fn perft_vectors_match_kalah_core_and_the_naive_rules() {
    let text = std::fs::read_to_string(data_path()).expect("tests/data/perft.txt");
    let mut lines = 0;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split('|').map(str::trim).collect();
        assert_eq!(
            f.len(),
            4,
            "line {}: rules | position | depth | count",
            i + 1
        );
        let rules: Rules = f[0].parse().unwrap();
        let pos: Position = f[1].parse().unwrap();
        let depth: u32 = f[2].parse().unwrap();
        let count: u64 = f[3].parse().unwrap();
        let naive = Naive::parse(f[1]);
        assert_eq!(
            naive.perft(&rules, depth),
            count,
            "naive, line {}: {line}",
            i + 1
        );
        assert_eq!(
            perft(&pos, &rules, depth),
            count,
            "perft, line {}: {line}",
            i + 1
        );
        assert_eq!(
            perft_full(&pos, &rules, depth),
            count,
            "perft_full, line {}: {line}",
            i + 1
        );
        assert_eq!(
            perft_stoppable(&pos, &rules, depth, &AtomicBool::new(false)),
            Some(count),
            "perft_stoppable, line {}: {line}",
            i + 1
        );
        let parts: u64 = divide(&pos, &rules, depth).iter().map(|&(_, n)| n).sum();
        assert_eq!(parts, count, "divide, line {}: {line}", i + 1);
        lines += 1;
    }
    // Every case, every depth.
    let want: u32 = CASES.iter().map(|c| c.2).sum();
    assert_eq!(
        lines, want as usize,
        "the data file is out of date: regenerate it"
    );
}

/// `perft_stoppable` gives up (`None`) when its flag is set before or during the count, soon
/// after a set from another thread (as `kalah perft` stops on Ctrl-C), and counts as `perft`
/// when it is not set.
#[test]
fn a_stoppable_perft_stops_when_told() {
    let rules = Rules::default();
    let start: Position = "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S".parse().unwrap();
    for depth in [0, 3, 9] {
        assert_eq!(
            perft_stoppable(&start, &rules, depth, &AtomicBool::new(true)),
            None
        );
    }
    assert_eq!(
        perft_stoppable(&start, &rules, 9, &AtomicBool::new(false)),
        Some(perft(&start, &rules, 9))
    );
    // Depth 40 never ends: only the flag, set by another thread, ends it.
    let stop = Arc::new(AtomicBool::new(false));
    let setter = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            stop.store(true, Ordering::Relaxed);
            Instant::now()
        })
    };
    let result = perft_stoppable(&start, &rules, 40, &stop);
    let stopped_at = setter.join().unwrap();
    assert_eq!(result, None);
    // Generous for a loaded machine: a check comes every millisecond or two of counting.
    assert!(
        stopped_at.elapsed() < Duration::from_secs(5),
        "slow to stop"
    );
}

/// Writes tests/data/perft.txt from `CASES` with the naive implementation only.
#[test]
#[ignore = "rewrites the data file"]
fn regenerate() {
    let mut out = String::from(
        "# Perft vectors: rules | position | depth | number of action sequences of that length.\n\
         # Produced by the naive implementation of tests/common/naive.rs (seed-by-seed sowing on a\n\
         # Vec) with `cargo test -p kalah-core --test perft_vectors -- --ignored regenerate`;\n\
         # checked against kalah-core's perft, perft_full and divide by the default tests.\n",
    );
    for &(r, p, deepest) in CASES {
        let rules: Rules = r.parse().unwrap();
        let naive = Naive::parse(p);
        for d in 1..=deepest {
            out.push_str(&format!(
                "{rules} | {p} | {d} | {}\n",
                naive.perft(&rules, d)
            ));
        }
    }
    std::fs::write(data_path(), out).unwrap();
}

/// Deeper counts from the start of Kalah(6,4) under a few rule sets, naive against kalah-core
/// (about 10 s): `cargo test -p kalah-core --test perft_vectors -- --ignored deep`.
#[test]
#[ignore = "long: naive perft to depth 10"]
fn deep_perft_matches_naive() {
    for (r, p, depth) in [
        ("", "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S", 10),
        (
            "capture=empty end=mover-blocked leftovers=emptier",
            "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S",
            9,
        ),
        (
            "pie=on first-move-extra-turn=off",
            "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S opening",
            9,
        ),
        (
            "majority-end=on leftovers=nobody",
            "0,5,6,2,1,8,10,3,0,7,1,2,4,9 N",
            10,
        ),
    ] {
        let rules: Rules = r.parse().unwrap();
        let pos: Position = p.parse().unwrap();
        let want = Naive::parse(p).perft(&rules, depth);
        assert_eq!(perft(&pos, &rules, depth), want, "{rules} | {p} | {depth}");
        assert_eq!(
            perft_full(&pos, &rules, depth),
            want,
            "{rules} | {p} | {depth}"
        );
    }
}
