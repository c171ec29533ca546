//! `kalah show`: a position, optionally after some actions, as a board or as JSON.

use anyhow::{bail, Context, Result};
use kalah_core::{Move, MoveError, Position, Rules, Turn, TurnEnd};
use serde::Serialize;

use crate::board::{self, BoardLabels, ColorChoice, Paint};
use crate::game_args::RuleArgs;
use crate::output::print;

/// Arguments of `kalah show`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The position in bin order with the side to move, e.g. "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S"
    /// [default: the start position of the rule flags].
    #[arg(value_name = "POSITION")]
    pub position: Option<String>,
    /// Actions to play first, in order: items separated by commas and/or spaces, each an action
    /// of the side to move (a house number, or `swap`) or the actions of one turn joined by `-`
    /// (3-6: house 3 earns an extra turn, then house 6), e.g. 3,6,1 or "3-6 1". Every action of
    /// a turn but the last must earn an extra turn; a trailing `-` (3-) says the turn goes on,
    /// so its last action must earn one too.
    #[arg(long, value_name = "ACTIONS", allow_hyphen_values = true)]
    pub moves: Option<String>,
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Print JSON: {"position", "to_move", "over", "score", "legal"}.
    #[arg(long)]
    pub json: bool,
    /// Colour: auto (on a terminal, unless NO_COLOR is set), always or never.
    #[arg(long, value_name = "WHEN", default_value = "auto", ignore_case = true)]
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

/// One item of `--moves`: an action, or the actions of one turn joined by `-` (`3-6`), with a
/// trailing `-` when the turn goes on (`3-`), as `kalah play`, game records and the web API write
/// a turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MovesItem {
    /// Its actions.
    pub turn: Turn,
    /// [`TurnEnd::Open`] when it ends in `-` (its last action must earn an extra turn), else
    /// [`TurnEnd::Prefix`] (it may stop anywhere within the turn, but not go past its end), as
    /// `kalah play` reads a typed turn.
    pub end: TurnEnd,
}

/// Parses the `--moves` list: items separated by commas and/or spaces (`3,6,1`, `3 6 1`,
/// `3, 6, 1`), each an action or the actions of one turn joined by `-` (`3-6 1`), optionally
/// ending in `-` (`3-`: the turn goes on). An empty item between two commas (`3,,6`, a trailing
/// `3,6,`) is refused, as in `--layout`: it is most likely a slip; so is an empty action within
/// an item (`3--6`, `-6`). An empty text is no action. The actions themselves are read by
/// kalah-core's [`Turn`] (house numbers or `swap`); whether they can be played, and whether a
/// turn ends where its text says, is checked when played ([`play_items`]).
///
/// # Errors
/// Names the item that is empty, holds an empty action, or holds something that is neither a
/// house number nor `swap`.
pub fn parse_moves(text: &str) -> Result<Vec<MovesItem>> {
    let mut items = Vec::new();
    if text.trim().is_empty() {
        return Ok(items);
    }
    for piece in text.split(',') {
        if piece.trim().is_empty() {
            bail!(
                "--moves item {}: an empty item is not an action (a house number or 'swap')",
                items.len() + 1
            );
        }
        for word in piece.split_whitespace() {
            items.push(parse_item(word, items.len() + 1)?);
        }
    }
    Ok(items)
}

/// Reads the item `word` (number `n`, from 1) of `--moves`.
fn parse_item(word: &str, n: usize) -> Result<MovesItem> {
    let (body, end) = match word.strip_suffix('-') {
        Some(b) => (b, TurnEnd::Open),
        None => (word, TurnEnd::Prefix),
    };
    if body.split('-').any(str::is_empty) {
        bail!(
            "--moves item {n} ('{}'): {}",
            kalah_core::error::clipped(word),
            MoveError::EmptyAction
        );
    }
    // A record's turn numbers and side letters pasted with its turns (tester 110: `--moves
    // "1. S 3-1 2. N 5"` got "'1.' is not a move").
    let numbered = word
        .strip_suffix('.')
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
    if numbered || matches!(word, "S" | "N") {
        bail!(
            "--moves item {n} ('{word}') is a game record's turn number or side letter ('1. S \
             3-1 2. N 5'), not a move: give the turns alone ('3-1 5')"
        );
    }
    let turn: Turn = body
        .parse()
        .with_context(|| format!("--moves item {n} ('{}')", kalah_core::error::clipped(word)))?;
    Ok(MovesItem { turn, end })
}

/// One played action: the position before it, the action, what it did.
pub type Played = (Position, Move, kalah_core::Outcome);

/// Plays the `items` from `pos`, returning the final position and, for each action, the position
/// before it and its outcome. Each item is checked as `kalah play` checks a typed turn
/// (kalah-core's [`Turn::check_step`]): every action of an item but the last must earn an extra
/// turn, and the last one must earn one too when the item ends in `-`.
///
/// # Errors
/// Names the item of the first illegal action and why, or the item that does not end where its
/// text says.
pub fn play_items(
    mut pos: Position,
    rules: &Rules,
    items: &[MovesItem],
) -> Result<(Position, Vec<Played>)> {
    let mut log = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let n = i + 1;
        for (k, &mv) in item.turn.moves().iter().enumerate() {
            let before = pos;
            let out = match pos.play(rules, mv) {
                Ok(out) => out,
                Err(source) if item.turn.moves().len() == 1 => {
                    // The item as written: `3-` says the turn goes on.
                    let open = if item.end == TurnEnd::Open { "-" } else { "" };
                    return Err(anyhow::Error::new(source).context(format!(
                        "--moves item {n} ('{mv}{open}') cannot be played in {}",
                        before
                    )));
                }
                Err(source) => bail!(
                    "--moves item {n}: {} (in {})",
                    item.turn.illegal_step(k, source),
                    before
                ),
            };
            item.turn
                .check_step(item.end, k, &out)
                .with_context(|| format!("--moves item {n}"))?;
            log.push((before, mv, out));
        }
    }
    Ok((pos, log))
}

/// Reads and plays the `--moves` list `text` from `pos` ([`parse_moves`], [`play_items`]).
///
/// # Errors
/// The first problem in the list's order: the items before an unreadable one are played
/// first, so `3,3,x` from the start is told that item 2 cannot be played (house 3 is empty
/// after 3), not that item 3 is not a move.
pub fn play_moves(pos: Position, rules: &Rules, text: &str) -> Result<(Position, Vec<Played>)> {
    match parse_moves(text) {
        Ok(items) => play_items(pos, rules, &items),
        Err(unreadable) => {
            // The items before the unreadable one (an empty item or one parse_item refuses).
            let mut before = Vec::new();
            let mut refused = None;
            'items: for piece in text.split(',') {
                if piece.trim().is_empty() {
                    break;
                }
                for word in piece.split_whitespace() {
                    match parse_item(word, before.len() + 1) {
                        Ok(item) => before.push(item),
                        Err(_) => {
                            refused = Some(word);
                            break 'items;
                        }
                    }
                }
            }
            let (at, _) = play_items(pos, rules, &before)?;
            // A house number above 255 is told as any other house the board lacks (`13` on
            // six houses): with the board's own count (tester 23).
            if let (Some(word), Some(MoveError::HouseTooLarge(house))) =
                (refused, unreadable.downcast_ref::<MoveError>())
            {
                let n = before.len() + 1;
                // After other actions (`3-99999`): those are checked first, as in any turn.
                if let Some((e, there)) = Turn::refuse_large_house(word, &at, rules) {
                    // As `play_items` words them: a turn that goes on too far names no position.
                    if matches!(e, kalah_core::TurnError::TooLong { .. }) {
                        bail!("--moves item {n}: {e}");
                    }
                    bail!("--moves item {n}: {e} (in {there})");
                }
                let what = MoveError::HouseTooLarge(house.clone()).on_board(at.houses());
                bail!(
                    "--moves item {n} ('{}') cannot be played in {at}: {what}",
                    kalah_core::error::clipped(word)
                );
            }
            Err(unreadable)
        }
    }
}

/// Runs `kalah show`.
pub fn run(args: Args) -> Result<()> {
    let rules = args.rules.rules();
    let start = args.rules.position(args.position.as_deref())?;
    let (pos, log) = match &args.moves {
        Some(text) => play_moves(start, &rules, text)?,
        None => (start, Vec::new()),
    };
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
            position: pos.to_string(),
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
    s.push_str(&format!("Position: {}\n", pos));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The items of `text` as (actions, open).
    fn items(text: &str) -> Vec<(Vec<Move>, bool)> {
        parse_moves(text)
            .unwrap()
            .into_iter()
            .map(|i| (i.turn.0, i.end == TurnEnd::Open))
            .collect()
    }

    #[test]
    fn commas_and_spaces_separate_items_and_a_dash_joins_one_turn() {
        let s = Move::Sow;
        assert_eq!(items(""), vec![]);
        assert_eq!(items("  "), vec![]);
        let three = vec![
            (vec![s(3)], false),
            (vec![s(6)], false),
            (vec![s(1)], false),
        ];
        for text in ["3,6,1", "3 6 1", "3, 6, 1", " 3 ,6  1 "] {
            assert_eq!(items(text), three, "{text}");
        }
        assert_eq!(
            items("3-6 1"),
            vec![(vec![s(3), s(6)], false), (vec![s(1)], false)]
        );
        assert_eq!(
            items("3-,swap"),
            vec![(vec![s(3)], true), (vec![Move::Swap], false)]
        );
        assert_eq!(items("3-6-"), vec![(vec![s(3), s(6)], true)]);
    }

    #[test]
    fn empty_items_and_empty_actions_are_refused_by_item() {
        let err = |t: &str| format!("{:#}", parse_moves(t).unwrap_err());
        assert!(err("3,,6").starts_with("--moves item 2: an empty item"));
        assert!(err("3-6,").starts_with("--moves item 2: an empty item"));
        assert!(err("1 3--6").starts_with("--moves item 2 ('3--6'): an empty action"));
        assert!(err("-").starts_with("--moves item 1 ('-'): an empty action"));
        assert!(err("3 -6").starts_with("--moves item 2 ('-6'): an empty action"));
        assert_eq!(
            err("3-x"),
            "--moves item 1 ('3-x'): 'x' is not a move: expected a house number (digits, no leading zero) or 'swap'"
        );
    }

    #[test]
    fn a_records_turn_numbers_and_side_letters_are_named() {
        let err = |t: &str| format!("{:#}", parse_moves(t).unwrap_err());
        for (text, item) in [("1. S 3-1 2. N 5", "1 ('1.')"), ("3-1 N 5", "2 ('N')")] {
            assert_eq!(
                err(text),
                format!(
                    "--moves item {item} is a game record's turn number or side letter ('1. S \
                     3-1 2. N 5'), not a move: give the turns alone ('3-1 5')"
                )
            );
        }
        // A house number with no dot, and `s` in another case, are read as before.
        assert!(err("1.5").contains("is not a move: expected a house number"));
    }

    #[test]
    fn the_first_problem_in_the_list_is_reported() {
        let rules = Rules::default();
        let start = Position::start(&kalah_core::Start::uniform(6, 4).unwrap(), &rules);
        let err = |t: &str| format!("{:#}", play_moves(start, &rules, t).unwrap_err());
        // 3 earns an extra turn and leaves house 3 empty: item 2 is illegal, item 3 unreadable.
        for text in ["3,3,x", "3,3,256", "3 3,,6", "3,3,-6"] {
            assert!(
                err(text).starts_with("--moves item 2 ('3') cannot be played"),
                "{text}: {}",
                err(text)
            );
        }
        // Nothing illegal before it: the unreadable item itself.
        assert!(err("3,6,x").starts_with("--moves item 3 ('x'): 'x' is not a move"));
        assert!(err("3,,3,x").starts_with("--moves item 2: an empty item"));
        assert!(err("x,3").starts_with("--moves item 1 ('x')"));
        // The item as written (tester 19: '3-' was quoted as '3').
        assert!(err("3,3-").starts_with("--moves item 2 ('3-') cannot be played"));
        assert_eq!(play_moves(start, &rules, "3-6").unwrap().1.len(), 2);
    }

    #[test]
    fn each_item_is_checked_as_play_checks_a_typed_turn() {
        let rules = Rules::default();
        let start = Position::start(&kalah_core::Start::uniform(6, 4).unwrap(), &rules);
        let play = |t: &str| play_items(start, &rules, &parse_moves(t).unwrap());
        let (pos, log) = play("3-6").unwrap();
        assert_eq!(pos.to_string(), "4,4,0,5,5,0,2,5,5,5,5,4,4,0 N");
        assert_eq!(log.len(), 2);
        assert_eq!(play("3,6").unwrap().0, pos);
        // 3 may stop within the turn, as a typed turn may.
        let (after3, _) = play("3").unwrap();
        assert_eq!(play("3-").unwrap().0, after3);
        let err = |t: &str| format!("{:#}", play(t).unwrap_err());
        assert_eq!(
            err("3-6-1"),
            "--moves item 1: '3-6-1' goes on after action 2 (house 6), which ends the turn"
        );
        assert_eq!(
            err("6-"),
            "--moves item 1: '6-' ends with '-', but action 1 (house 6) earns no extra turn"
        );
    }
}
