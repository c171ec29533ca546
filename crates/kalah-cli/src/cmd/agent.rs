//! `kalah agent`: the engine as an agent of the Manchester Kalah game engine (`ManKalah.jar`):
//! the referee's messages on standard input, the engine's actions on standard output (see
//! [`kalah_protocol::manchester`]).

use std::io::{BufReader, Write};
use std::sync::Arc;

use anyhow::{Context, Result};
use kalah_core::{Position, Rules, Start};
use kalah_engine::{Engine, Level};
use kalah_protocol::manchester::{self, Agent};

use crate::cmd::play::{engine_limits, parse_move_nodes};
use crate::game_args::{parse_houses, parse_rules, parse_seed, parse_seeds};

/// Arguments of `kalah agent`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Houses a side, 1 to 12 (the referee's board must have as many).
    #[arg(long, value_name = "M", default_value = "7", allow_negative_numbers = true, value_parser = parse_houses)]
    pub houses: usize,
    /// Seeds in each house at the start.
    #[arg(long, value_name = "N", default_value = "7", allow_negative_numbers = true, value_parser = parse_seeds)]
    pub seeds: u32,
    /// The rules the engine plays by, in the text form (`capture=standard pie=on ...`; keys
    /// left out take the standard rule) [default: the Manchester rules, `pie=on
    /// first-move-extra-turn=off`]. The referee's board and turn are followed where they differ.
    #[arg(long, value_name = "TEXT", value_parser = parse_rules)]
    pub rules: Option<Rules>,
    /// Engine level: beginner, easy, medium, hard, expert or perfect.
    #[arg(long, value_name = "LEVEL", default_value = "perfect")]
    pub level: Level,
    /// Thinking time per action, in milliseconds [default: the level's; perfect: 2000].
    #[arg(
        long,
        value_name = "MS",
        allow_negative_numbers = true,
        value_parser = crate::cmd::serve::parse_ms
    )]
    pub move_time_ms: Option<u64>,
    /// Nodes the engine may search per action. Without --move-time-ms there is then no time
    /// limit.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_move_nodes)]
    pub move_nodes: Option<u64>,
    /// Threads of the engine's exact search [default: 1].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::cmd::egdb::parse_threads)]
    pub threads: Option<usize>,
    /// Fix the engine's random choices (levels beginner and easy), for games that repeat
    /// [default: a new seed each run].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_seed)]
    pub seed: Option<u64>,
    /// Directory of the endgame databases the engine uses [default: the per-user database
    /// root, ~/.local/share/kalah/egdb on Linux, if it exists].
    #[arg(long, value_name = "DIR")]
    pub egdb_dir: Option<std::path::PathBuf>,
    /// Do not use endgame databases even if present.
    #[arg(long, conflicts_with = "egdb_dir")]
    pub no_egdb: bool,
}

/// Runs `kalah agent`: one game, from the referee's `START` to its `END`.
///
/// # Errors
/// A board that is no Kalah board, databases that cannot be opened, and whatever stops the
/// game before `END` ([`manchester::RunError`]: a line that is not a message, a message out of
/// order, a board of another size, the input closed), each named.
pub fn run(args: Args) -> Result<()> {
    let rules = args.rules.unwrap_or_else(manchester::rules);
    let layout = Start::uniform(args.houses, args.seeds)
        .with_context(|| format!("no Kalah({},{}) board", args.houses, args.seeds))?;
    let start = Position::start(&layout, &rules);
    let egdb = if args.no_egdb {
        None
    } else {
        crate::cmd::solve::open_egdb_dir(args.egdb_dir.as_deref(), args.houses, &rules)?
            .map(Arc::new)
    };
    let mut engine = match args.seed {
        Some(seed) => Engine::with_seed(args.level, seed),
        None => Engine::new(args.level),
    };
    engine.set_egdb(egdb);
    engine.set_threads(args.threads.unwrap_or(1));
    let limits = engine_limits(args.move_time_ms, args.move_nodes);
    let mut agent = Agent::new(rules, start);
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut engine_failed = None;
    let result = manchester::run_agent(
        &mut agent,
        BufReader::new(stdin.lock()),
        stdout.lock(),
        |pos, rules| match engine.choose_with(pos, rules, limits) {
            Some(choice) => choice.mv,
            None => {
                // Not expected: `run_agent` asks only where there is an action.
                engine_failed = Some(pos.to_string());
                pos.legal_moves(rules)[0]
            }
        },
        |note| stderr_line!("kalah: note: {note}"),
    );
    if let Some(pos) = engine_failed {
        stderr_line!(
            "kalah: warning: the engine found no action in {pos}; played the first legal one"
        );
    }
    let _ = std::io::stderr().flush();
    result.context("the agent stopped before the referee's END")
}
