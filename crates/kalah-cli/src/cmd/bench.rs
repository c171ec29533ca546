//! `kalah bench`: a fixed set of positions solved exactly with a fixed table size. The total node
//! count is a deterministic signature of the search (quote it in commits that change the search);
//! the rate in positions and nodes per second measures speed.

use anyhow::{Context, Result};
use kalah_core::{CaptureRule, Position, Rules, Start};
use kalah_solver::Solver;
use serde_json::json;

use crate::output::print;

/// Arguments of `kalah bench`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Transposition table size in MiB, at least 1 (part of the signature: change it and the node
    /// count changes).
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = crate::cmd::solve::parse_tt_mb)]
    pub tt_mb: usize,
    /// Print JSON: {"positions": [{"name", "position", "value", "nodes", "seconds"}, ...],
    /// "nodes", "seconds", "positions_per_second", "nodes_per_second", "tt_mb"}.
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

/// Runs `kalah bench`.
pub fn run(args: Args) -> Result<()> {
    let mut total_nodes = 0u64;
    let mut total_secs = 0.0f64;
    let mut lines = String::new();
    let mut rows = Vec::new();
    for case in CASES {
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
        // A fresh table per position, so each count is independent of the order.
        let mut solver = Solver::new(rules, args.tt_mb);
        let sol = solver
            .solve(&pos)
            .with_context(|| format!("bench position {}", case.name))?;
        let secs = sol.stats.elapsed.as_secs_f64();
        total_nodes += sol.stats.nodes;
        total_secs += secs;
        lines.push_str(&format!(
            "{:<22} {:<34} {:>+4} {:>12} nodes {:>8.3} s\n",
            case.name,
            pos.to_string(),
            sol.value,
            sol.stats.nodes,
            secs
        ));
        rows.push(json!({
            "name": case.name,
            "position": pos.to_string(),
            "value": sol.value,
            "nodes": sol.stats.nodes,
            "seconds": secs,
        }));
    }
    let n = CASES.len() as f64;
    let pps = if total_secs > 0.0 {
        n / total_secs
    } else {
        0.0
    };
    let nps = if total_secs > 0.0 {
        total_nodes as f64 / total_secs
    } else {
        0.0
    };
    if args.json {
        print(&format!(
            "{}\n",
            json!({
                "positions": rows,
                "nodes": total_nodes,
                "seconds": total_secs,
                "positions_per_second": pps,
                "nodes_per_second": nps,
                "tt_mb": args.tt_mb,
            })
        ))
    } else {
        print(&format!(
            "{lines}\n{} positions, table {} MiB\nnodes: {total_nodes}\ntime: {total_secs:.3} s, \
             {pps:.2} positions/s, {:.2} M nodes/s\n",
            CASES.len(),
            args.tt_mb,
            nps / 1e6
        ))
    }
}
