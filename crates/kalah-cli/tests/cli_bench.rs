//! `kalah bench` stopped by Ctrl-C: it reports the positions finished so far, says it was
//! stopped, and exits with code 130, in text and in JSON.

use std::io::{BufRead, BufReader, Read};
use std::time::Duration;

use serde_json::Value;

mod common;

/// The nodes column of a position's line (`... 538078 nodes 0.227 s`).
fn row_nodes(line: &str) -> u64 {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words
        .iter()
        .position(|w| *w == "nodes")
        .expect("a nodes column");
    words[at - 1].parse().expect("a node count")
}

#[test]
fn ctrl_c_prints_the_positions_finished_and_exits_130() {
    // Regression: interrupted, `kalah bench` died of the signal and printed nothing.
    let mut child = common::spawn_kalah(&["bench"]);
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    // The first position's line: the bench has started (and set its Ctrl-C handler); the
    // whole bench takes seconds.
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.starts_with("Kalah(4,4) empty "), "{first:?}");
    let out = common::interrupt(child, Duration::from_millis(50));
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let text = first + &rest;
    assert_eq!(out.status.code(), Some(130), "{text}");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The lines of the positions finished, a blank line, then the summary.
    let (rows, summary) = text
        .split_once("\n\n")
        .expect("a blank line before the summary");
    let rows: Vec<&str> = rows.lines().collect();
    let summary: Vec<&str> = summary.lines().collect();
    assert!(rows.len() < 15, "{text}");
    assert_eq!(
        summary[0],
        format!("{} of 15 positions finished, table 64 MiB", rows.len()),
        "{text}"
    );
    let nodes: u64 = rows.iter().map(|r| row_nodes(r)).sum();
    assert_eq!(summary[1], format!("nodes: {nodes}"), "{text}");
    assert!(
        summary[2].starts_with("time: ") && summary[2].ends_with(" M nodes/s"),
        "{text}"
    );
    let at = rows.len() + 1;
    assert!(
        summary[3].starts_with(&format!("interrupted (Ctrl-C) in position {at} of 15 ("))
            || summary[3].starts_with(&format!(
                "interrupted (Ctrl-C) before position {at} of 15 ("
            )),
        "{text}"
    );
    assert!(
        summary[3].ends_with("the bench is incomplete, its node count is not the signature"),
        "{text}"
    );
    assert_eq!(summary.len(), 4, "{text}");
}

#[test]
fn ctrl_c_with_json_prints_a_stopped_object() {
    let child = common::spawn_kalah(&["bench", "--json"]);
    // Past the start-up (the Ctrl-C handler is set), well before the bench (seconds) ends.
    let out = common::interrupt(child, Duration::from_millis(500));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(130), "{text}");
    let v: Value = serde_json::from_str(&text).expect("one JSON object");
    assert_eq!(v["stopped"], Value::Bool(true), "{text}");
    assert_eq!(v["signal"], "SIGINT", "{text}");
    assert_eq!(v["tt_mb"], 64, "{text}");
    let rows = v["positions"].as_array().expect("the positions finished");
    assert!(rows.len() < 15, "{text}");
    let nodes: u64 = rows.iter().map(|r| r["nodes"].as_u64().unwrap()).sum();
    assert_eq!(v["nodes"].as_u64(), Some(nodes), "{text}");
    assert!(v["seconds"].as_f64().unwrap() >= 0.0, "{text}");
    let unfinished = &v["unfinished"];
    let name = unfinished["name"].as_str().expect("the position stopped");
    assert!(rows.iter().all(|r| r["name"] != name), "{text}");
    assert!(unfinished["position"].is_string(), "{text}");
    assert!(unfinished["nodes"].is_u64(), "{text}");
    assert!(unfinished["seconds"].is_f64(), "{text}");
}
