//! `kalah analyze`: the exact value of every legal action, or of every whole first turn, on one
//! or more threads.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Result;
use indicatif::ProgressBar;
use kalah_core::{Position, Rules};
use kalah_solver::{
    analyze_moves_parallel_partial, analyze_turns_parallel_partial, search_jobs, ParallelOptions,
    ParallelProgress, PartialAnalysis, SolveError, Stats,
};
use serde_json::json;

use crate::cmd::egdb::{parse_threads, threads_for};
use crate::cmd::solve::{
    end_stopped, make_solver, make_solvers, show_progress, stop_json, Limits, Proven, Target,
};
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
    /// Print JSON: {"position", "rules", "value", "moves": [{"move": "3-6", "value": 10}, ...],
    /// "nodes", "seconds"}.
    #[arg(long)]
    pub json: bool,
    /// Threads, 1 to 256 [default: every core]: each solves whole actions (or turns), all
    /// sharing one transposition table of --tt-mb (without --tt-mb: the default size; with
    /// databases that reach the position, a 2 MiB table each); 1 is the sequential analysis.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_threads)]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub limits: Limits,
}

/// Runs `kalah analyze`. Values are final store differences from the view of the side to move
/// in the position, with perfect play after the action or turn.
pub fn run(args: Args) -> Result<()> {
    let rules = args.target.rules.rules();
    let pos = args.target.position()?;
    let threads = thread_count(threads_for(args.threads), &pos, &rules, args.turns);
    if threads > 1 {
        return run_parallel(&args, &rules, &pos, threads);
    }
    // The position read above: read again, it would be said again (its note, tester 75's
    // review) and its --moves played again.
    let (mut solver, bar) = make_solver(
        &args.target.search,
        &rules,
        &pos,
        &args.limits,
        "analysing",
        None,
    )?;
    let started = std::time::Instant::now();
    solver.set_limits(args.limits.position_limits());
    let rows = if args.turns {
        rows_of(solver.analyze_turns_partial(&pos), |t| {
            (t.turn.to_string(), t.value)
        })
    } else {
        rows_of(solver.analyze_moves_partial(&pos), |m| {
            (m.mv.to_string(), m.value)
        })
    };
    let rows = match rows {
        Ok(rows) => rows,
        Err(p) => return stopped(&args, &pos, p, &bar, started),
    };
    bar.finish_and_clear();
    crate::cmd::solve::warn_if_damaged(solver.egdb().map(|db| &**db));
    let nodes = solver.last_stats().nodes;
    report(&args, &pos, &rows, (nodes, started.elapsed().as_secs_f64()))
}

/// An analysis's result as rows (action or turn as written, value), whole or as far as it got.
type Rows = Vec<(String, i32)>;

/// `result`'s actions or turns as [`Rows`] by `row`: all of them, or those valued before a
/// stop.
fn rows_of<T>(
    result: Result<Vec<T>, PartialAnalysis<T>>,
    row: impl Fn(T) -> (String, i32),
) -> Result<Rows, PartialAnalysis<(String, i32)>> {
    match result {
        Ok(v) => Ok(v.into_iter().map(row).collect()),
        Err(p) => Err(PartialAnalysis {
            found: p.found.into_iter().map(row).collect(),
            error: p.error,
        }),
    }
}

/// Prints what a stopped analysis of `pos` (begun at `started`) found: `position: ...`, the
/// actions or turns valued before the stop (tester 68: they were lost), what stopped it and the
/// bounds proven on the position's value (`stopped by --nodes 5000 after N nodes and S s: the
/// analysis is incomplete (3 of 10 turns valued); the position's value lies between +6 and
/// +12`); with `--json` one object, `{"position", "moves": [...], "stopped": true, "lower",
/// "upper", "nodes", "seconds"}` and `"signal": "SIGINT"` or `"limit": "nodes"` (and `"value"`
/// once the bounds meet). The value is not taken from the rows: an action not valued may be
/// better.
///
/// A signal's stop exits with code 128 + the signal's number (130 for Ctrl-C).
///
/// # Errors
/// At a limit (`--time-ms`, `--nodes`): `the analysis was not finished within --nodes 5000`
/// (exit code 1).
fn stopped(
    args: &Args,
    pos: &Position,
    p: PartialAnalysis<(String, i32)>,
    bar: &ProgressBar,
    started: std::time::Instant,
) -> Result<()> {
    bar.finish_and_clear();
    let limit = args.limits.limit_hit(started);
    let SolveError::Stopped {
        lower,
        upper,
        stats,
    } = p.error;
    let secs = stats.elapsed.as_secs_f64();
    let rules = args.target.rules.rules();
    if args.json {
        let mut v = stop_json(
            (pos, &rules),
            (lower, upper),
            (stats.nodes, secs),
            limit.as_ref(),
        );
        v["moves"] = rows_json(&p.found);
        print(&format!("{v}\n"))?;
    } else {
        let what = if args.turns { "turns" } else { "actions" };
        let total = if args.turns {
            kalah_core::Turn::all(pos, &rules).len()
        } else {
            pos.legal_moves(&rules).len()
        };
        // The position first, as a stopped `solve` prints it, even when nothing was valued.
        let mut s = format!("position: {pos}\n");
        if !p.found.is_empty() {
            s.push_str(&format!(
                "{} valued before the stop (final store difference with perfect play, for {}):\n",
                if args.turns { "whole turns" } else { "actions" },
                pos.side()
            ));
            s.push_str(&rows_text(&p.found, None));
        }
        s.push_str(&format!(
            "{} after {} nodes and {secs:.2} s: the analysis is incomplete ({} of {total} \
             {what} valued); {}\n",
            crate::cmd::solve::stopped_by(limit.as_ref()),
            stats.nodes,
            p.found.len(),
            value_bounds_text(pos, &rules, lower, upper),
        ));
        print(&s)?;
    }
    end_stopped(limit, "the analysis was not finished")
}

/// What a stopped analysis proved of the value of `pos`: `the position's value lies between +6
/// and +12`, `the position's value is +8 (proven)`, or, when the bounds are no tighter than the
/// seeds in play give, `no bounds on the position's value proven yet`.
fn value_bounds_text(pos: &Position, rules: &Rules, lower: i32, upper: i32) -> String {
    match Proven::of(pos, rules, lower, upper) {
        Proven::Value(v) => format!("the position's value is {v:+} (proven)"),
        Proven::Nothing => "no bounds on the position's value proven yet".to_string(),
        Proven::Between(lo, hi) => format!("the position's value lies between {lo:+} and {hi:+}"),
    }
}

/// The threads to use for `requested`: no more than the actions (or turns, with `turns`) of
/// `pos` that need a search, since each thread solves whole ones and those that end the game
/// are valued without a search. With at most one such job the analysis is sequential (1), so
/// that the one search gets the whole `--tt-mb` table instead of a thread's share.
fn thread_count(requested: usize, pos: &Position, rules: &Rules, turns: bool) -> usize {
    requested.min(search_jobs(pos, rules, turns)).max(1)
}

/// `kalah analyze` on `threads` threads (at least 2): one solver each, whole actions or turns
/// handed out from a shared queue (see [`kalah_solver::analyze_turns_parallel`]).
fn run_parallel(args: &Args, rules: &Rules, pos: &Position, threads: usize) -> Result<()> {
    let (mut solvers, stop) = make_solvers(&args.target.search, rules, pos, &args.limits, threads)?;
    let bar = ProgressBar::hidden();
    let shown = bar.clone();
    let work: Arc<Mutex<Stats>> = Arc::default();
    let what = if args.turns { "turns" } else { "actions" };
    let opts = ParallelOptions {
        stop: Some(stop),
        progress: Some(Arc::new(move |p: &ParallelProgress| {
            if p.elapsed >= Duration::from_secs(1) {
                show_progress(&shown, progress_message(what, threads, p));
            }
        })),
        stats: Some(Arc::clone(&work)),
    };
    let started = std::time::Instant::now();
    for solver in &mut solvers {
        solver.set_limits(args.limits.position_limits());
    }
    let rows = if args.turns {
        rows_of(
            analyze_turns_parallel_partial(&mut solvers, pos, &opts),
            |t| (t.turn.to_string(), t.value),
        )
    } else {
        rows_of(
            analyze_moves_parallel_partial(&mut solvers, pos, &opts),
            |m| (m.mv.to_string(), m.value),
        )
    };
    let rows = match rows {
        Ok(rows) => rows,
        Err(p) => return stopped(args, pos, p, &bar, started),
    };
    bar.finish_and_clear();
    crate::cmd::solve::warn_if_damaged(solvers[0].egdb().map(|db| &**db));
    let nodes = work.lock().map_or(0, |w| w.nodes);
    report(args, pos, &rows, (nodes, started.elapsed().as_secs_f64()))
}

/// The progress line of a parallel analysis, e.g. `analysing on 2 threads: 3/10 turns solved,
/// 4853760 nodes, 1.9 M nodes/s (Ctrl-C stops)`. Turns (or actions) that end the game need no
/// search and are not counted.
fn progress_message(what: &str, threads: usize, p: &ParallelProgress) -> String {
    format!(
        "analysing on {threads} threads: {}/{} {what} solved, {} nodes, {:.1} M nodes/s (Ctrl-C stops)",
        p.done,
        p.jobs,
        p.nodes,
        p.nodes_per_second / 1e6
    )
}

/// Prints the values of the actions or turns in `rows`, found with `nodes` nodes (of every
/// thread) in `secs` seconds. The position's value (the best of `rows`, or the final store
/// difference of a finished game, both from the view of the side to move) goes with them.
fn report(
    args: &Args,
    pos: &Position,
    rows: &[(String, i32)],
    (nodes, secs): (u64, f64),
) -> Result<()> {
    let value = if pos.is_over() {
        pos.store_diff(pos.side())
    } else {
        rows.iter().map(|r| r.1).max().unwrap_or(0)
    };
    if args.json {
        return print(&format!(
            "{}\n",
            json!({"position": pos.to_string(), "rules": args.target.rules.rules().to_string(), "value": value, "moves": rows_json(rows), "nodes": nodes, "seconds": crate::output::json_seconds(secs)})
        ));
    }
    let Some(side) = pos.to_move() else {
        return print(&format!(
            "position: {}\nthe game is over: final store difference {value:+} from {}'s view; \
             nothing to analyse\n",
            pos,
            pos.side()
        ));
    };
    let mut s = format!(
        "position: {pos}\n{} for {side} (final store difference with perfect play):\n",
        if args.turns { "whole turns" } else { "actions" }
    );
    s.push_str(&rows_text(rows, Some(value)));
    s.push_str(&format!("({nodes} nodes, {secs:.3} s)\n"));
    print(&s)
}

/// `rows` as JSON: `[{"move": "3-6", "value": 10}, ...]`.
fn rows_json(rows: &[(String, i32)]) -> serde_json::Value {
    rows.iter()
        .map(|(m, v)| json!({"move": m, "value": v}))
        .collect()
}

/// `rows` as text, one a line (`     3  +10  <- best`), the actions right-aligned; those worth
/// `best` marked.
fn rows_text(rows: &[(String, i32)], best: Option<i32>) -> String {
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(4).max(4);
    rows.iter()
        .map(|(m, v)| {
            let mark = if Some(*v) == best { "  <- best" } else { "" };
            format!("  {m:>width$}  {v:+}{mark}\n")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_screen::Screen;

    #[test]
    fn the_parallel_progress_line_stays_on_one_row() {
        // Regression: on an 80-column terminal the line wrapped onto a second row, padded with
        // spaces to the edge and redrawn with cursor moves at every update.
        let screen = Screen::new(80);
        let bar = screen.bar(None);
        bar.set_style(crate::cmd::solve::progress_style());
        for (done, nodes) in [(0, 1_896_448), (3, 12_460_012), (9, 1_234_567_890)] {
            let p = ParallelProgress {
                done,
                jobs: 10,
                nodes,
                elapsed: Duration::from_secs(2),
                nodes_per_second: 4.5e6,
            };
            bar.set_message(progress_message("turns", 2, &p));
            bar.tick();
        }
        let log = screen.log.lock().unwrap();
        let drawn: Vec<&String> = log.iter().filter(|s| s.contains("analysing")).collect();
        assert!(drawn[0].contains("analysing on 2 threads: 0/10 turns solved, 1896448 nodes"));
        assert!(drawn[drawn.len() - 1].contains("9/10 turns solved, 1234567890 nodes"));
        for s in log.iter() {
            // Each redraw returns to the start of its one row (a move up by 0) and clears it.
            assert!(
                !s.starts_with("<down") && (!s.starts_with("<up") || s == "<up 0>"),
                "{log:?}"
            );
            assert!(!s.contains('\n'), "{log:?}");
            assert!(s.chars().count() <= 80, "wider than the terminal: {s:?}");
        }
    }

    fn pos(text: &str) -> Position {
        text.parse().expect("a valid position")
    }

    #[test]
    fn threads_are_capped_by_the_jobs_that_need_a_search() {
        let rules = Rules::default();
        // South's 1 captures North's last seeds and ends the game; 3 earns an extra turn.
        let p = pos("1,0,1,0,0,5,0,0 S");
        // Two actions, but one search: sequential, with the whole table.
        assert_eq!(thread_count(2, &p, &rules, false), 1);
        // Both whole turns (1, 3-1) end the game: nothing to search.
        assert_eq!(thread_count(8, &p, &rules, true), 1);
        // The start of Kalah(6,4): six actions and ten turns, none ending the game.
        let start = pos("4,4,4,4,4,4,0,4,4,4,4,4,4,0 S");
        assert_eq!(thread_count(256, &start, &rules, false), 6);
        assert_eq!(thread_count(256, &start, &rules, true), 10);
        assert_eq!(thread_count(2, &start, &rules, true), 2);
        // A finished game.
        let over = pos("0,0,0,0,0,0,20,1,1,1,1,1,1,22 N");
        assert_eq!(thread_count(2, &over, &rules, true), 1);
    }
}
