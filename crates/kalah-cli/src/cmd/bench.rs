//! `kalah bench`: a fixed set of positions solved exactly with a fixed table size. The total node
//! count is a deterministic signature of the search (quote it in commits that change the search);
//! the rate in positions and nodes per second measures speed. Ctrl-C stops it cleanly: the
//! positions finished so far are reported, with exit code 130.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{Context, Result};
use kalah_core::{CaptureRule, Position, Rules, Start};
use kalah_solver::{SolveError, Solver};
use serde_json::{json, Value};

use crate::cmd::solve::stop_on_ctrl_c;
use crate::output::{json_round, json_seconds, print};

/// Arguments of `kalah bench`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Transposition table size in MiB, at least 1 and at most this machine's memory (part of
    /// the signature: change it and the node count changes).
    #[arg(long, value_name = "N", allow_negative_numbers = true, default_value_t = 64, value_parser = crate::cmd::solve::parse_tt_mb)]
    pub tt_mb: usize,
    /// Print JSON: {"positions": [{"name", "position", "value", "nodes", "seconds"}, ...],
    /// "nodes", "seconds", "positions_per_second", "nodes_per_second", "tt_mb"}; stopped by
    /// Ctrl-C, the positions finished, "stopped": true and "unfinished": {"name", "position",
    /// "nodes", "seconds"}.
    #[arg(long)]
    pub json: bool,
}

/// One bench position: a name, the position (or a Kalah(m,n) start), the capture rule.
struct Case {
    name: &'static str,
    position: &'static str,
    start: Option<(usize, u32)>,
    capture: CaptureRule,
}

const fn start(name: &'static str, m: usize, n: u32, capture: CaptureRule) -> Case {
    Case {
        name,
        position: "",
        start: Some((m, n)),
        capture,
    }
}

const fn at(name: &'static str, position: &'static str) -> Case {
    Case {
        name,
        position,
        start: None,
        capture: CaptureRule::Standard,
    }
}

/// Small boards' openings, then Kalah(6,4) middle games and endgames taken from the OpenSpiel
/// reference games (game index and ply in the name), under standard rules.
const CASES: &[Case] = &[
    start("Kalah(4,4) empty", 4, 4, CaptureRule::Empty),
    start("Kalah(4,5) standard", 4, 5, CaptureRule::Standard),
    start("Kalah(5,3) standard", 5, 3, CaptureRule::Standard),
    start("Kalah(6,2) empty", 6, 2, CaptureRule::Empty),
    start("Kalah(6,2) standard", 6, 2, CaptureRule::Standard),
    at("middle game 0/18", "1,9,11,1,3,0,8,1,2,2,0,0,1,9 S"),
    at("middle game 1/18", "1,0,4,10,1,4,7,4,0,2,1,1,1,12 N"),
    at("middle game 3/18", "1,11,0,6,1,1,13,0,0,6,0,3,0,6 N"),
    at("middle game 5/18", "1,1,1,4,9,8,10,2,1,2,2,0,0,7 S"),
    at("middle game 4/24", "1,5,0,0,1,17,6,1,4,0,1,1,1,10 N"),
    at("endgame 0/24", "0,0,0,4,5,2,10,3,4,0,3,1,1,15 N"),
    at("endgame 1/24", "2,0,4,0,1,6,8,5,1,0,4,0,4,13 S"),
    at("endgame 2/18", "0,0,6,2,1,2,8,11,0,3,2,0,0,13 S"),
    at("endgame 2/24", "0,0,0,0,1,0,12,13,2,4,0,2,1,13 S"),
    at("endgame 5/24", "1,0,0,0,10,0,15,1,0,5,2,1,1,12 S"),
];

/// A position solved: its nodes, seconds and JSON row.
struct Done {
    nodes: u64,
    secs: f64,
    row: Value,
}

/// The JSON summary of the positions `done`: their rows, total nodes and seconds, positions and
/// nodes per second, and the table size.
fn summary_json(done: &[Done], tt_mb: usize) -> Value {
    let (nodes, secs, pps, nps) = totals(done);
    let rows: Vec<&Value> = done.iter().map(|d| &d.row).collect();
    json!({
        "positions": rows,
        "nodes": nodes,
        "seconds": json_seconds(secs),
        "positions_per_second": json_round(pps, 1e3),
        "nodes_per_second": json_round(nps, 1e3),
        "tt_mb": tt_mb,
    })
}

/// The `nodes:` and `time:` lines over the positions `done`.
fn summary_text(done: &[Done]) -> String {
    let (nodes, secs, pps, nps) = totals(done);
    format!(
        "nodes: {nodes}\ntime: {secs:.3} s, {pps:.2} positions/s, {:.2} M nodes/s\n",
        nps / 1e6
    )
}

/// The totals over the positions `done`: nodes, seconds, positions and nodes per second.
fn totals(done: &[Done]) -> (u64, f64, f64, f64) {
    let nodes: u64 = done.iter().map(|d| d.nodes).sum();
    // Not `sum()`: the sum of no f64 is -0.0.
    let secs = done.iter().fold(0.0, |s, d| s + d.secs);
    let (pps, nps) = if secs > 0.0 {
        (done.len() as f64 / secs, nodes as f64 / secs)
    } else {
        (0.0, 0.0)
    };
    (nodes, secs, pps, nps)
}

/// The rules and the position of a bench case.
fn case_position(case: &Case) -> Result<(Rules, Position)> {
    let rules = Rules {
        capture: case.capture,
        ..Rules::default()
    };
    let pos = match case.start {
        Some((m, n)) => Position::start(&Start::uniform(m, n)?, &rules),
        None => case
            .position
            .parse()
            .with_context(|| format!("bench position {}", case.name))?,
    };
    Ok((rules, pos))
}

/// Runs `kalah bench`. Without `--json` each position's line is printed as soon as it is solved.
pub fn run(args: Args) -> Result<()> {
    let stop = Arc::new(AtomicBool::new(false));
    stop_on_ctrl_c(stop.clone());
    let mut done: Vec<Done> = Vec::new();
    for (i, case) in CASES.iter().enumerate() {
        let (rules, pos) = case_position(case)?;
        if stop.load(Ordering::SeqCst) {
            return stopped(&args, &done, i, &pos, None);
        }
        // A fresh table per position, so each count is independent of the order.
        let mut solver = Solver::new(rules, args.tt_mb);
        solver.set_stop_flag(stop.clone());
        let sol = match solver.solve(&pos) {
            Ok(sol) => sol,
            Err(SolveError::Stopped { stats, .. }) => {
                let partial = (stats.nodes, stats.elapsed.as_secs_f64());
                return stopped(&args, &done, i, &pos, Some(partial));
            }
        };
        let secs = sol.stats.elapsed.as_secs_f64();
        let line = format!(
            "{:<22} {:<34} {:>+4} {:>12} nodes {:>8.3} s\n",
            case.name,
            pos.to_string(),
            sol.value,
            sol.stats.nodes,
            secs
        );
        if !args.json {
            print(&line)?;
        }
        done.push(Done {
            nodes: sol.stats.nodes,
            secs,
            row: json!({
                "name": case.name,
                "position": pos.to_string(),
                "value": sol.value,
                "nodes": sol.stats.nodes,
                "seconds": json_seconds(secs),
            }),
        });
    }
    if args.json {
        print(&format!("{}\n", summary_json(&done, args.tt_mb)))
    } else {
        print(&format!(
            "\n{} positions, table {} MiB\n{}",
            CASES.len(),
            args.tt_mb,
            summary_text(&done)
        ))
    }
}

/// Reports a bench stopped by Ctrl-C and exits with code 130 (interrupted): the totals of the
/// positions `done`, then which position was stopped (index `at` in [`CASES`], `pos`), with the
/// nodes and seconds spent in it (`partial`; `None` when it was stopped before its search
/// began). The line without `--json` has been printed for each position done.
fn stopped(
    args: &Args,
    done: &[Done],
    at: usize,
    pos: &Position,
    partial: Option<(u64, f64)>,
) -> Result<()> {
    let name = CASES[at].name;
    let (part_nodes, part_secs) = partial.unwrap_or((0, 0.0));
    if args.json {
        let mut summary = summary_json(done, args.tt_mb);
        summary["stopped"] = json!(true);
        summary["signal"] = json!(crate::signals::signal_name());
        summary["unfinished"] = json!({
            "name": name,
            "position": pos.to_string(),
            "nodes": part_nodes,
            "seconds": json_seconds(part_secs),
        });
        print(&format!("{summary}\n"))?;
    } else {
        let (n, of) = (at + 1, CASES.len());
        let when = match partial {
            Some(_) => format!(
                "in position {n} of {of} ({name}) after {part_nodes} nodes and {part_secs:.2} s"
            ),
            None => format!("before position {n} of {of} ({name})"),
        };
        print(&format!(
            "\n{} of {of} positions finished, table {} MiB\n{}{} {when}: the bench is \
             incomplete, its node count is not the signature\n",
            done.len(),
            args.tt_mb,
            summary_text(done),
            crate::signals::stopped_by()
        ))?;
    }
    std::process::exit(crate::signals::exit_code());
}
