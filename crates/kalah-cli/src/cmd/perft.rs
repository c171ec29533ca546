//! `kalah perft`: count the action sequences of a given length (one sowing or swap is one ply;
//! an extra turn is another ply by the same player; a finished game adds nothing deeper).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use kalah_core::{divide, perft, perft_stoppable, Move, Position, Rules};

use crate::game_args::RuleArgs;
use crate::output::print;

/// Deepest depth accepted: far beyond what finishes in a lifetime on 6 houses, but it keeps an
/// obvious typo (e.g. 100) from starting an endless run.
pub const MAX_DEPTH: u32 = 40;

/// Arguments of `kalah perft`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Plies to count (0 to 40).
    #[arg(value_name = "DEPTH", allow_negative_numbers = true, value_parser = parse_depth)]
    pub depth: u32,
    /// The position in bin order with the side to move [default: the start position of the rule
    /// flags].
    #[arg(value_name = "POSITION")]
    pub position: Option<String>,
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Also print the count below each legal first action.
    #[arg(long)]
    pub divide: bool,
}

/// Parses a DEPTH: a whole number of plies, 0 to [`MAX_DEPTH`]. A bad depth is a command-line
/// error (clap reports it: one line, exit code 2), like any other bad value.
fn parse_depth(s: &str) -> Result<u32, String> {
    crate::game_args::whole_number(s, 0, MAX_DEPTH.into(), "plies").map(|d| d as u32)
}

/// Runs `kalah perft`.
///
/// Prints the count (the number of sequences of exactly DEPTH plies), the nodes (positions
/// reached at plies 1 to DEPTH, i.e. the sum of the counts of every depth up to DEPTH), the time
/// and nodes per second. Ctrl-C (or SIGTERM, SIGHUP) stops the count: the progress bar is
/// cleared, one line on stderr says so, and the exit code is 128 + the signal's number.
pub fn run(args: Args) -> Result<()> {
    let rules = args.rules.rules();
    let pos = args.rules.position(args.position.as_deref())?;
    let depth = args.depth;
    // Caught from before the first line (a test that waits for it may then signal).
    let stop = Arc::new(AtomicBool::new(false));
    super::solve::stop_on_ctrl_c(stop.clone());
    print(&format!("perft {depth} of {}\n", pos))?;
    let t0 = Instant::now();
    let bar = progress_bar(&pos, &rules, depth);
    let counted = count(&pos, &rules, depth, args.divide, &bar, &stop);
    // Whatever ended the count (its end, a stop, a closed output), the bar leaves the line.
    bar.finish_and_clear();
    let Some((count, nodes)) = counted? else {
        stderr_line!(
            "kalah: perft {} after {:.1} s: the count was not finished",
            crate::signals::stopped_by(),
            t0.elapsed().as_secs_f64()
        );
        std::process::exit(crate::signals::exit_code());
    };
    let secs = t0.elapsed().as_secs_f64();
    let rate = if secs > 0.0 { nodes as f64 / secs } else { 0.0 };
    print(&format!(
        "count: {count}\nnodes: {nodes}\ntime: {secs:.3} s ({:.1} M nodes/s)\n",
        rate / 1e6
    ))
}

/// The count and the nodes of `kalah perft` (with `divide`, the counts below each first action
/// are printed first), or `None` once `stop` is set.
fn count(
    pos: &Position,
    rules: &Rules,
    depth: u32,
    divide: bool,
    bar: &ProgressBar,
    stop: &AtomicBool,
) -> Result<Option<(u64, u64)>> {
    let count = if depth == 0 {
        match perft_stoppable(pos, rules, 0, stop) {
            Some(n) => n,
            None => return Ok(None),
        }
    } else {
        let Some(split) = divide_counted(pos, rules, depth, bar, stop) else {
            return Ok(None);
        };
        if divide {
            let mut s = String::new();
            for (mv, n) in &split {
                s.push_str(&format!("{:>4}: {n}\n", mv.to_string()));
            }
            bar.suspend(|| print(&s))?;
        }
        split.iter().map(|(_, n)| n).sum()
    };
    // perft(1) + ... + perft(DEPTH): the root (ply 0) is not counted, so depth 0 has no nodes.
    bar.set_message("nodes of the smaller depths");
    let mut nodes = if depth == 0 { 0 } else { count };
    for d in 1..depth {
        match perft_stoppable(pos, rules, d, stop) {
            Some(n) => nodes += n,
            None => return Ok(None),
        }
    }
    Ok(Some((count, nodes)))
}

/// Depths from which a bar is worth drawing (a second or more on Kalah(6,4)).
const BAR_FROM_DEPTH: u32 = 11;

/// The progress bar on stderr, one step per position two plies down (each a share of the
/// count), drawn only when stderr is a terminal and the depth is large; hidden otherwise.
fn progress_bar(pos: &Position, rules: &Rules, depth: u32) -> ProgressBar {
    if depth < BAR_FROM_DEPTH {
        return ProgressBar::hidden();
    }
    let bar = crate::output::progress_bar(perft(pos, rules, 2));
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed} [{bar:20}] {pos}/{len} positions two plies down (Ctrl-C stops)  {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    if !bar.is_hidden() {
        bar.enable_steady_tick(Duration::from_millis(200));
    }
    bar
}

/// [`divide`], counted below each position two plies down so that `bar` moves: the same
/// counts (perft of a position is the sum of its children's); `None` once `stop` is set.
fn divide_counted(
    pos: &Position,
    rules: &Rules,
    depth: u32,
    bar: &ProgressBar,
    stop: &AtomicBool,
) -> Option<Vec<(Move, u64)>> {
    if depth < 2 {
        return Some(divide(pos, rules, depth));
    }
    pos.legal_moves(rules)
        .into_iter()
        .map(|mv| {
            let mut child = *pos;
            child.play_unchecked(rules, mv);
            if !child_counts(&child, rules) {
                return Some((mv, 0));
            }
            let mut n = 0;
            for gm in child.legal_moves(rules) {
                let mut grand = child;
                grand.play_unchecked(rules, gm);
                n += perft_stoppable(&grand, rules, depth - 2, stop)?;
                bar.inc(1);
            }
            Some((mv, n))
        })
        .collect()
}

/// Whether perft counts below `child`: not when its game ended by a rule that is not yet
/// settled into a finished position (as [`perft()`] checks).
fn child_counts(child: &Position, rules: &Rules) -> bool {
    child.is_over() || child.end_reason(rules).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The counts with the progress bar are those of `divide`, under rules whose games end in
    /// different ways, from starts and from positions near the end.
    #[test]
    fn counted_divide_is_divide() {
        let rule_sets = [
            Rules::default(),
            "capture=empty end=mover-blocked leftovers=emptier majority-end=on pie=on"
                .parse::<Rules>()
                .unwrap(),
            "first-move-extra-turn=off leftovers=nobody"
                .parse()
                .unwrap(),
        ];
        for rules in rule_sets {
            for text in [
                "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S",
                "3,3,3,3,0,3,3,3,3,0 S opening",
                "0,0,1,0,2,1,20,1,0,0,0,0,1,22 N",
                "1,0,0,0,0,0,23,0,0,0,0,0,1,23 S",
            ] {
                let pos: Position = text.parse().unwrap();
                if !rules.allows_phase(pos.phase()) {
                    continue;
                }
                for depth in 0..=5 {
                    let bar = ProgressBar::hidden();
                    assert_eq!(
                        divide_counted(&pos, &rules, depth, &bar, &AtomicBool::new(false)),
                        Some(divide(&pos, &rules, depth)),
                        "{text} {rules} depth {depth}"
                    );
                }
            }
        }
    }

    #[test]
    fn depths_0_to_40_are_accepted_and_nothing_else() {
        assert_eq!(parse_depth("0"), Ok(0));
        assert_eq!(parse_depth("40"), Ok(MAX_DEPTH));
        assert_eq!(
            parse_depth("41"),
            Err("use 0 to 40 plies, not 41".to_string())
        );
        assert_eq!(
            parse_depth("-1"),
            Err("use 0 to 40 plies, not -1".to_string())
        );
        // Beyond any integer type: still a depth out of range, not "not a number".
        assert_eq!(
            parse_depth("99999999999999999999999"),
            Err("use 0 to 40 plies, not 99999999999999999999999".to_string())
        );
        for bad in ["x", "", "-", "4.5", "1e3"] {
            assert_eq!(
                parse_depth(bad),
                Err(format!("'{bad}' is not a whole number of plies"))
            );
        }
    }
}
