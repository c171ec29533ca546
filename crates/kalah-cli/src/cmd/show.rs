//! `kalah show`: a position, optionally after some actions, as a board or as JSON.

use anyhow::{bail, Context, Result};
use kalah_core::{Move, Position, Rules};
use serde::Serialize;

use crate::board::{self, BoardLabels, ColorChoice, Paint};
use crate::cmd::solve::position_text;
use crate::game_args::RuleArgs;
use crate::output::print;

/// Arguments of `kalah show`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The position in bin order with the side to move, e.g. "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S"
    /// [default: the start position of the rule flags].
    #[arg(value_name = "POSITION")]
    pub position: Option<String>,
    /// Actions to play first, in order: house numbers of the side to move (or `swap`),
    /// separated by commas or dashes, e.g. 3,6,1.
    #[arg(long, value_name = "ACTIONS", allow_hyphen_values = true)]
    pub moves: Option<String>,
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Print JSON: {"position", "to_move", "over", "score", "legal"}.
    #[arg(long)]
    pub json: bool,
    /// Colour: auto (on a terminal, unless NO_COLOR is set), always or never.
    #[arg(long, value_name = "WHEN", default_value = "auto")]
    pub color: ColorChoice,
}

/// The JSON form of `kalah show`. `legal` lists the legal houses of the side to move as
/// numbers, then the string "swap" when the pie-rule swap is legal.
#[derive(Serialize)]
struct ShowJson {
    position: String,
    to_move: Option<String>,
    over: bool,
    score: Option<[u8; 2]>,
    legal: Vec<serde_json::Value>,
}

/// Parses `3,6,1` (or `3-6-1`, `3 6 1`, `3, 6, 1`) into actions. An empty item between two
/// commas or dashes (`3,,6`, a trailing `3,6,`) is refused, as in `--layout`: it is most likely
/// a slip. An empty text is no action.
///
/// # Errors
/// Names the item that is empty, or neither a house number nor `swap`.
pub fn parse_actions(text: &str) -> Result<Vec<Move>> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut items: Vec<&str> = Vec::new();
    for piece in text.split([',', '-']) {
        if piece.trim().is_empty() {
            bail!(
                "--moves item {}: an empty item is not an action (a house number or 'swap')",
                items.len() + 1
            );
        }
        items.extend(piece.split_whitespace());
    }
    items
        .iter()
        .enumerate()
        .map(|(i, t)| {
            t.parse::<Move>()
                .with_context(|| format!("--moves item {} ('{t}')", i + 1))
        })
        .collect()
}

/// One played action: the position before it, the action, what it did.
pub type Played = (Position, Move, kalah_core::Outcome);

/// Plays `actions` from `pos`, returning the final position and, for each action, the position
/// before it and its outcome.
///
/// # Errors
/// Names the first illegal action and why.
pub fn play_actions(
    mut pos: Position,
    rules: &Rules,
    actions: &[Move],
) -> Result<(Position, Vec<Played>)> {
    let mut log = Vec::with_capacity(actions.len());
    for (i, &mv) in actions.iter().enumerate() {
        let before = pos;
        let out = pos.play(rules, mv).with_context(|| {
            format!(
                "--moves item {} ('{mv}') cannot be played in {}",
                i + 1,
                position_text(&before)
            )
        })?;
        log.push((before, mv, out));
    }
    Ok((pos, log))
}

/// Runs `kalah show`.
pub fn run(args: Args) -> Result<()> {
    let rules = args.rules.rules();
    let start = args.rules.position(args.position.as_deref())?;
    let actions = match &args.moves {
        Some(text) => parse_actions(text)?,
        None => Vec::new(),
    };
    let (pos, log) = play_actions(start, &rules, &actions)?;
    if args.json {
        let legal = pos
            .legal_moves(&rules)
            .iter()
            .map(|m| match m {
                Move::Sow(h) => serde_json::Value::from(*h),
                Move::Swap => serde_json::Value::from("swap"),
            })
            .collect();
        let j = ShowJson {
            position: position_text(&pos),
            to_move: pos.to_move().map(|s| s.letter().to_string()),
            over: pos.is_over(),
            score: pos.score(&rules),
            legal,
        };
        return print(&format!("{}\n", serde_json::to_string(&j)?));
    }
    let paint = Paint::new(args.color.enabled());
    let mut s = String::new();
    for (i, (before, mv, out)) in log.iter().enumerate() {
        let what = board::describe(before, &rules, out);
        let action = match mv {
            Move::Sow(h) => format!("{} {h}", before.side()),
            Move::Swap => format!("{} swap", before.side()),
        };
        s.push_str(&format!("{:>3}. {action}: {what}\n", i + 1));
    }
    if !log.is_empty() {
        s.push('\n');
    }
    let labels = BoardLabels {
        last: log.last().and_then(|(before, mv, out)| match mv {
            Move::Sow(h) if out.ended.is_none() => Some((before.side(), *h as usize)),
            _ => None,
        }),
        ..BoardLabels::default()
    };
    s.push_str(&board::draw(&pos, &labels, paint));
    s.push('\n');
    s.push_str(&format!("Position: {}\n", position_text(&pos)));
    match pos.to_move() {
        Some(side) => s.push_str(&format!(
            "{side} to move; legal: {}\n",
            board::legal_list(&pos, &rules)
        )),
        None => {
            let score = pos.score(&rules).unwrap_or([
                pos.store(kalah_core::Side::South),
                pos.store(kalah_core::Side::North),
            ]);
            s.push_str(&format!("Game over. {}\n", board::score_text(score)));
        }
    }
    print(&s)
}
