//! `kalah analyze`: the exact value of every legal action, or of every whole first turn.

use anyhow::Result;
use serde_json::json;

use crate::cmd::solve::{stopped, Target};
use crate::output::print;

/// Arguments of `kalah analyze`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub target: Target,
    /// Value every whole first turn (chains of extra turns expanded, `3-6`) instead of every
    /// single action.
    #[arg(long)]
    pub turns: bool,
    /// Print JSON: {"position", "moves": [{"move": "3-6", "value": 10}, ...], "seconds"}.
    #[arg(long)]
    pub json: bool,
}

/// Runs `kalah analyze`. Values are final store differences from the view of the side to move
/// in the position, with perfect play after the action or turn.
pub fn run(args: Args) -> Result<()> {
    let (_, pos, mut solver, bar) = args.target.setup("analysing", false)?;
    let started = std::time::Instant::now();
    let rows: Vec<(String, i32)> = if args.turns {
        match solver.analyze_turns(&pos) {
            Ok(v) => v
                .into_iter()
                .map(|t| (t.turn.to_string(), t.value))
                .collect(),
            Err(e) => return stopped(e, args.json, &bar, false),
        }
    } else {
        match solver.analyze_moves(&pos) {
            Ok(v) => v.into_iter().map(|m| (m.mv.to_string(), m.value)).collect(),
            Err(e) => return stopped(e, args.json, &bar, false),
        }
    };
    bar.finish_and_clear();
    let secs = started.elapsed().as_secs_f64();
    if args.json {
        let moves: Vec<_> = rows
            .iter()
            .map(|(m, v)| json!({"move": m, "value": v}))
            .collect();
        return print(&format!(
            "{}\n",
            json!({"position": pos.to_string(), "moves": moves, "seconds": secs})
        ));
    }
    let Some(side) = pos.to_move() else {
        return print(&format!(
            "position: {pos}\nthe game is over: nothing to analyse\n"
        ));
    };
    let best = rows.iter().map(|r| r.1).max().unwrap_or(0);
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(4).max(4);
    let mut s = format!(
        "position: {pos}\n{} for {side} (final store difference with perfect play):\n",
        if args.turns { "whole turns" } else { "actions" }
    );
    for (m, v) in &rows {
        let mark = if *v == best { "  <- best" } else { "" };
        s.push_str(&format!("  {m:>width$}  {v:+}{mark}\n"));
    }
    s.push_str(&format!("({secs:.3} s)\n"));
    print(&s)
}
