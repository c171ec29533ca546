//! `kalah perft`: count the action sequences of a given length (one sowing or swap is one ply;
//! an extra turn is another ply by the same player; a finished game adds nothing deeper).

use std::time::Instant;

use anyhow::Result;
use kalah_core::{divide, perft};

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
/// and nodes per second.
pub fn run(args: Args) -> Result<()> {
    let rules = args.rules.rules();
    let pos = args.rules.position(args.position.as_deref())?;
    let depth = args.depth;
    print(&format!("perft {depth} of {}\n", pos))?;
    let t0 = Instant::now();
    let count = if args.divide && depth > 0 {
        let split = divide(&pos, &rules, depth);
        let mut s = String::new();
        for (mv, n) in &split {
            s.push_str(&format!("{:>4}: {n}\n", mv.to_string()));
        }
        print(&s)?;
        split.iter().map(|(_, n)| n).sum()
    } else {
        perft(&pos, &rules, depth)
    };
    // perft(1) + ... + perft(DEPTH): the root (ply 0) is not counted, so depth 0 has no nodes.
    let nodes: u64 = if depth == 0 {
        0
    } else {
        count + (1..depth).map(|d| perft(&pos, &rules, d)).sum::<u64>()
    };
    let secs = t0.elapsed().as_secs_f64();
    let rate = if secs > 0.0 { nodes as f64 / secs } else { 0.0 };
    print(&format!(
        "count: {count}\nnodes: {nodes}\ntime: {secs:.3} s ({:.1} M nodes/s)\n",
        rate / 1e6
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

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
