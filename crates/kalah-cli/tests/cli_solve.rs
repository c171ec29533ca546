//! `kalah solve`, `kalah analyze` and `kalah bench` end to end.

use assert_cmd::Command;
use serde_json::Value;

/// `kalah ARGS --no-egdb` (never pick up databases from the user's data directory in tests).
fn kalah(args: &[&str]) -> Command {
    let mut c = Command::cargo_bin("kalah").unwrap();
    c.args(args).arg("--no-egdb");
    c
}

fn json(args: &[&str]) -> Value {
    let mut c = Command::cargo_bin("kalah").unwrap();
    let out = c
        .args(args)
        .arg("--no-egdb")
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
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
