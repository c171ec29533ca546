//! `kalah analyze --threads N`: the same output on any number of threads, and bad thread counts
//! refused with one clear line.

use assert_cmd::Command;
use serde_json::Value;

mod common;

/// Runs `kalah analyze ARGS --no-egdb` (never the user's databases in tests) and returns its
/// standard output.
fn analyze(args: &[&str]) -> String {
    let args: Vec<&str> = std::iter::once("analyze")
        .chain(args.iter().copied())
        .collect();
    String::from_utf8(common::kalah_ok(&args)).unwrap()
}

/// The output without its last line (the nodes and time taken, which differ with the threads),
/// or the JSON without "nodes" and "seconds" (the nodes a positive count).
fn without_time(out: &str) -> String {
    match serde_json::from_str::<Value>(out) {
        Ok(mut v) => {
            v.as_object_mut().unwrap().remove("seconds");
            let nodes = v.as_object_mut().unwrap().remove("nodes");
            assert!(
                nodes.and_then(|n| n.as_u64()).is_some_and(|n| n > 0),
                "{out}"
            );
            v.to_string()
        }
        Err(_) => {
            let lines: Vec<&str> = out.lines().collect();
            let last = lines.last().unwrap();
            assert!(
                last.starts_with('(') && last.contains(" nodes, ") && last.ends_with(" s)"),
                "{out}"
            );
            lines[..lines.len() - 1].join("\n")
        }
    }
}

#[test]
fn one_two_and_three_threads_print_the_same_analysis() {
    let cases: [&[&str]; 6] = [
        &["--houses", "4", "--seeds", "3", "--turns"],
        &[
            "--houses",
            "4",
            "--seeds",
            "3",
            "--capture",
            "empty",
            "--json",
        ],
        &["--houses", "5", "--seeds", "2", "--turns", "--json"],
        &["0,3,3,1,0,3,3,0 N pie", "--pie", "--json"],
        // House 3 ends the game (South's row empties; North sweeps): no search for it.
        &["0,0,1,10,2,3,0,5 S", "--turns"],
        &["0,2,1,3,0,5,1,0,2,1,2,4,0,3 N", "--turns", "--json"],
    ];
    for args in cases {
        let one = without_time(&analyze(&[args, &["--threads", "1"]].concat()));
        assert!(one.contains("-") || one.contains("+"), "{one}");
        for threads in ["2", "3"] {
            let many = without_time(&analyze(&[args, &["--threads", threads]].concat()));
            assert_eq!(many, one, "{args:?} on {threads} threads");
        }
    }
    // The default (every core) too.
    let args = ["--houses", "4", "--seeds", "3", "--turns", "--json"];
    assert_eq!(
        without_time(&analyze(&args)),
        without_time(&analyze(&[&args[..], &["--threads", "1"]].concat()))
    );
}

#[test]
fn more_threads_than_actions_and_a_finished_game_are_fine() {
    let out = analyze(&["--houses", "2", "--seeds", "1", "--threads", "256"]);
    assert!(out.contains("<- best"), "{out}");
    let out = analyze(&["0,0,0,10,2,3,0,5 S", "--threads", "2"]);
    assert!(out.contains("the game is over"), "{out}");
}

#[test]
fn bad_thread_counts_are_refused_with_one_clear_line() {
    for (bad, says) in [
        ("0", "use 1 to 256 threads, not 0"),
        ("300", "use 1 to 256 threads, not 300"),
        ("x", "'x' is not a whole number of threads"),
        ("-2", "--threads"),
    ] {
        let out = Command::cargo_bin("kalah")
            .unwrap()
            .args(["analyze", "--houses", "3", "--seeds", "2", "--no-egdb"])
            .arg(format!("--threads={bad}"))
            .output()
            .unwrap();
        assert!(!out.status.success(), "--threads {bad} accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "--threads {bad}: {err}");
        assert!(err.contains("--threads"), "--threads {bad}: {err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn ctrl_c_stops_every_thread_with_exit_130() {
    use std::time::{Duration, Instant};
    for threads in ["2", "3"] {
        let started = Instant::now();
        let child = common::spawn_kalah(&[
            "analyze",
            "--houses",
            "6",
            "--seeds",
            "4",
            "--turns",
            "--no-egdb",
            "--tt-mb",
            "64",
            "--threads",
            threads,
        ]);
        // Past the start-up (the Ctrl-C handler is set), long before the analysis (~10 s of
        // work on each thread) ends.
        let out = common::interrupt(child, Duration::from_millis(800));
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(130), "{threads} threads: {text}");
        // The turns valued before the stop, if any, then the line that says it stopped.
        let last = text.lines().last().unwrap_or("");
        assert!(
            last.starts_with("interrupted (Ctrl-C) after ")
                && last.contains("the analysis is incomplete ("),
            "{threads} threads: {text}"
        );
        // Bounds, if any, hold the value of Kalah(6,4), +8 (Irving et al. 2000).
        if let Some(rest) = last.split("the position's value lies between ").nth(1) {
            let b: Vec<i32> = rest.split(" and ").map(|x| x.parse().unwrap()).collect();
            assert!(b[0] <= 8 && 8 <= b[1], "{text}");
        } else {
            assert!(
                last.ends_with("no bounds on the position's value proven yet"),
                "{text}"
            );
        }
        // Every thread stopped at once, not after finishing its job.
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{threads} threads"
        );
    }
}

/// `--threads` above the machine's cores is honoured (same answer) with a one-line warning on
/// stderr; up to the cores there is none.
#[test]
fn more_threads_than_cores_are_used_with_a_warning() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let run = |cmd: &str, threads: &str| {
        let out = assert_cmd::Command::new(assert_cmd::cargo::cargo_bin("kalah"))
            .args([cmd, "--houses", "4", "--seeds", "2", "--json", "--no-egdb"])
            .args(["--threads", threads])
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(out.status.success(), "{cmd} --threads {threads}: {stderr}");
        let mut v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v.as_object_mut().unwrap().remove("seconds");
        v.as_object_mut().unwrap().remove("nodes");
        v.as_object_mut().unwrap().remove("tt_hits");
        (v, stderr)
    };
    for cmd in ["solve", "analyze"] {
        let (one, quiet) = run(cmd, "1");
        assert_eq!(quiet, "", "{cmd} on one thread");
        if cores < 256 {
            let (many, warned) = run(cmd, "256");
            assert_eq!(many, one, "{cmd}: the same answer on 256 threads");
            assert_eq!(
                warned,
                format!(
                    "kalah: warning: --threads 256 on {cores} core{}: threads beyond the cores only slow the work down\n",
                    if cores == 1 { "" } else { "s" }
                ),
                "{cmd}"
            );
        }
    }
}
