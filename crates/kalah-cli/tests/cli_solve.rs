//! `kalah solve`, `kalah analyze` and `kalah bench` end to end.

use assert_cmd::Command;
use serde_json::Value;

mod common;

/// `kalah ARGS --no-egdb` (never pick up databases from the user's data directory in tests).
fn kalah(args: &[&str]) -> Command {
    let mut c = Command::cargo_bin("kalah").unwrap();
    c.args(args).arg("--no-egdb");
    c
}

fn json(args: &[&str]) -> Value {
    let args: Vec<&str> = args.iter().copied().chain(["--json"]).collect();
    serde_json::from_slice(&common::kalah_ok(&args)).unwrap()
}

#[test]
fn solve_prints_value_best_turns_and_pv_as_json() {
    // Kalah(4,3) with empty capture: +8 (Irving, Donkers & Uiterwijk 2000).
    let v = json(&[
        "solve",
        "--houses",
        "4",
        "--seeds",
        "3",
        "--capture",
        "empty",
    ]);
    assert_eq!(v["value"], 8);
    let best: Vec<String> = v["best"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_str().unwrap().to_string())
        .collect();
    assert!(!best.is_empty());
    // The PV is whole turns separated by spaces and starts with a best turn.
    let pv = v["pv"].as_str().unwrap();
    assert!(
        best.contains(&pv.split(' ').next().unwrap().to_string()),
        "{pv} vs {best:?}"
    );
    assert!(v["nodes"].as_u64().unwrap() > 0);
    assert!(v["seconds"].as_f64().is_some());
}

#[test]
fn solve_on_several_threads_gives_the_sequential_value_and_best_turns() {
    for (args, value) in [
        (
            &["--houses", "4", "--seeds", "3", "--capture", "empty"][..],
            8,
        ),
        (&["--houses", "5", "--seeds", "3"][..], 6),
        (&["--houses", "3", "--seeds", "3", "--pie"][..], -2),
        (
            &["0,0,3,1,2,4,9,5,0,0,2,1,0,12 S", "--capture", "empty"][..],
            -11,
        ),
    ] {
        let one = json(&[&["solve", "--threads", "1"][..], args].concat());
        assert_eq!(one["value"], value, "{args:?}");
        for threads in ["2", "3"] {
            let par = json(&[&["solve", "--threads", threads][..], args].concat());
            assert_eq!(par["value"], one["value"], "{args:?} on {threads} threads");
            assert_eq!(par["best"], one["best"], "{args:?} on {threads} threads");
            assert!(par["nodes"].as_u64().unwrap() > 0);
        }
    }
}

#[test]
fn solve_a_position_and_a_finished_game() {
    let v = json(&["solve", "0,0,1,10,2,3,0,5 S"]);
    assert_eq!(v["value"], 1);
    assert_eq!(v["best"], serde_json::json!(["3"]));
    let v = json(&["solve", "0,0,0,12,0,0,0,12"]);
    assert_eq!(v["value"], 0);
    assert_eq!(v["best"], serde_json::json!([]));
}

#[test]
fn analyze_lists_actions_and_whole_turns() {
    let v = json(&[
        "analyze",
        "--houses",
        "4",
        "--seeds",
        "3",
        "--capture",
        "empty",
    ]);
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 4);
    assert_eq!(
        moves.iter().map(|m| m["value"].as_i64().unwrap()).max(),
        Some(8)
    );
    let v = json(&[
        "analyze",
        "--houses",
        "4",
        "--seeds",
        "3",
        "--capture",
        "empty",
        "--turns",
    ]);
    let turns = v["moves"].as_array().unwrap();
    // House 2 (3 seeds) reaches the store: its turns are chains 2-1, 2-3, 2-4.
    assert!(turns.iter().any(|t| t["move"] == "2-3"));
    assert!(turns.len() > 4);
    assert_eq!(
        turns.iter().map(|m| m["value"].as_i64().unwrap()).max(),
        Some(8)
    );
}

#[test]
fn analyze_from_north_and_pie_rule_root() {
    let v = json(&["analyze", "0,3,3,1,0,3,3,0 N pie", "--pie"]);
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves.last().unwrap()["move"], "swap");
    let text = kalah(&["analyze", "0,3,3,1,0,3,3,0 N pie", "--pie"])
        .output()
        .unwrap();
    assert!(text.status.success());
    assert!(String::from_utf8_lossy(&text.stdout).contains("swap"));
}

#[test]
fn bad_input_is_one_line_and_a_failure() {
    for args in [
        vec!["solve", "1,2,3 S"],
        vec!["solve", "--houses", "0"],
        vec!["analyze", "4,4,4,4,0,4,4,4,4,0 X"],
        vec!["solve", "--houses", "6", "4,4,4,4,0,4,4,4,4,0 S"],
    ] {
        let out = kalah(&args).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("--no-egdb"),
            "{args:?}"
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn bench_prints_a_node_signature() {
    // Only the help here (the bench itself takes seconds): the run is covered by `kalah bench`
    // in docs/BENCHMARKS.md.
    let out = Command::cargo_bin("kalah")
        .unwrap()
        .args(["bench", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("--tt-mb"));
}

#[test]
fn table_sizes_out_of_range_are_refused_not_aborted() {
    // A table bigger than the machine's memory used to abort on the failed allocation (with a
    // backtrace); 0 MiB was silently taken as 1 (and `bench` printed "table 0 MiB").
    for args in [
        vec!["solve", "--houses", "3", "--seeds", "2", "--tt-mb", "0"],
        vec![
            "solve",
            "--houses",
            "3",
            "--seeds",
            "2",
            "--tt-mb",
            "18446744073709551615",
        ],
        vec![
            "analyze",
            "--houses",
            "3",
            "--seeds",
            "2",
            "--tt-mb",
            "99999999999",
        ],
        vec![
            "analyze", "--houses", "3", "--seeds", "2", "--tt-mb", "many",
        ],
    ] {
        let out = kalah(&args).env_remove("RUST_BACKTRACE").output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("--tt-mb"), "{args:?}: {err}");
    }
    for tt in ["0", "18446744073709551615"] {
        let out = Command::cargo_bin("kalah")
            .unwrap()
            .args(["bench", "--tt-mb", tt])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "bench --tt-mb {tt}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(out.stdout.is_empty(), "bench --tt-mb {tt} must not start");
    }
    // A sane explicit size still works.
    let v = json(&["solve", "--houses", "3", "--seeds", "2", "--tt-mb", "2"]);
    assert_eq!(v["value"], 4);
}

#[test]
fn serve_refuses_zero_engine_slots() {
    // With 0 slots the server started but answered every engine request with 503.
    let out = Command::cargo_bin("kalah")
        .unwrap()
        .args(["serve", "--port", "0", "--engine-slots", "0"])
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("--engine-slots"), "{err}");
    assert!(out.stdout.is_empty(), "must not start listening");
}

#[test]
fn ctrl_c_during_analyze_does_not_pass_a_move_bound_off_as_the_position_value() {
    // Kalah(6,3) is +2, but a stopped `analyze` printed "the value lies between +12 and +36":
    // the bounds of whichever move was being solved, from that move's side.
    use std::time::Duration;
    let child = common::spawn_kalah(&[
        "analyze",
        "--houses",
        "6",
        "--seeds",
        "3",
        "--turns",
        "--no-egdb",
    ]);
    // Past the start-up (the Ctrl-C handler is set), well before the ~4 s analysis ends.
    let out = common::interrupt(child, Duration::from_millis(800));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(130), "{text}");
    assert!(text.contains("the analysis is incomplete"), "{text}");
    assert!(!text.contains("lies between"), "{text}");
}
