//! Game review: every whole turn of a game valued against the best turn of its position, as a
//! player studying a game wants it ("where did I lose the win?").
//!
//! Each position before a turn is solved once ([`Solver::prove`]: its value and a principal
//! variation), from the last to the first, so that the search of an earlier position finds the
//! later ones' subtrees in the transposition table. The value of the turn played is read off the
//! position it leaves: minus that position's value when the turn hands the move over (a
//! pie-rule swap too: see [`crate::MoveScore::value`]), the final store difference when it ends
//! the game, the same value when the record stops in the middle of the turn.

use kalah_core::{Move, Position, Rules, Side, Turn};
use serde::Serialize;

use crate::search::{SearchLimits, SolveError, Solver, Stats};

/// A value (final store difference, from one side's view) proven exactly, or, when the search
/// was stopped at its limits, proven to lie between two bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Valued {
    /// The exact value.
    Exact(i32),
    /// The value lies in `lower..=upper` (`lower < upper`).
    Between(i32, i32),
}

impl Valued {
    /// The exact value, if proven.
    pub fn exact(self) -> Option<i32> {
        match self {
            Valued::Exact(v) => Some(v),
            Valued::Between(..) => None,
        }
    }

    /// The bounds: `(v, v)` for an exact value.
    pub fn bounds(self) -> (i32, i32) {
        match self {
            Valued::Exact(v) => (v, v),
            Valued::Between(lo, hi) => (lo, hi),
        }
    }

    /// `lower..=upper` (`lower <= upper`) as a `Valued`: exact when they meet.
    pub fn from_bounds(lower: i32, upper: i32) -> Valued {
        if lower == upper {
            Valued::Exact(lower)
        } else {
            Valued::Between(lower, upper)
        }
    }

    /// The same value from the opponent's view.
    fn negated(self) -> Valued {
        let (lo, hi) = self.bounds();
        Valued::from_bounds(-hi, -lo)
    }
}

/// One whole turn of a game, reviewed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnReview {
    /// The turn's number in the game, from 1 (South's first turn is 1, North's answer 2).
    pub number: usize,
    /// The position before the turn; its side to move ([`Position::side`]) played it.
    pub before: Position,
    /// The person who played it, by the side he began on (the record's `South` or `North`
    /// tag): the side to move in `before`, or the other one after a pie-rule swap, when each
    /// person plays the other side.
    pub player: Side,
    /// The turn played.
    pub turn: Turn,
    /// Whether the turn is unfinished: the game's last turn, stopped with an extra turn still to
    /// play. Its value is then that of the position it reached, the same player to move.
    pub open: bool,
    /// The value of `before` for the side that played the turn: what the best turn there gives
    /// with perfect play afterwards.
    pub best_value: Valued,
    /// A best turn of `before` (the first turn of a principal variation), when `best_value` is
    /// exact and the game was not over.
    pub best_turn: Option<Turn>,
    /// The value of the turn played, for the same side, with perfect play afterwards.
    pub played_value: Valued,
    /// The work of the search of `before` (zero when another turn's search, or the end of the
    /// game, gave it).
    pub stats: Stats,
}

impl TurnReview {
    /// Seeds of final store difference the turn gave away against perfect play (the best
    /// turn's value minus the played turn's), when both are exact: 0 for a best turn.
    pub fn loss(&self) -> Option<i32> {
        Some(self.best_value.exact()? - self.played_value.exact()?)
    }

    /// The least loss the bounds prove (0 when they prove none): `best_value`'s lower bound
    /// minus `played_value`'s upper bound.
    pub fn least_loss(&self) -> i32 {
        (self.best_value.bounds().0 - self.played_value.bounds().1).max(0)
    }

    /// Whether the turn changed the game's outcome for its player with perfect play, as
    /// (before, after): a win (value above 0), a draw (0) or a loss (below 0) before the turn,
    /// and what it is after. `None` when it did not, or the values are not both exact.
    pub fn outcome_change(&self) -> Option<(Outcome, Outcome)> {
        let before = Outcome::of(self.best_value.exact()?);
        let after = Outcome::of(self.played_value.exact()?);
        (before != after).then_some((before, after))
    }
}

/// A game's outcome for one player: the sign of the final store difference from his view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// More seeds in his store at the end.
    Win,
    /// As many as the opponent.
    Draw,
    /// Fewer.
    Loss,
}

impl Outcome {
    /// The outcome of a final store difference `v`.
    pub fn of(v: i32) -> Outcome {
        match v.signum() {
            1 => Outcome::Win,
            0 => Outcome::Draw,
            _ => Outcome::Loss,
        }
    }

    /// `win`, `draw` or `loss`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Draw => "draw",
            Outcome::Loss => "loss",
        }
    }
}

/// The positions of a game of `turns` from `start` under `rules`: before each turn, and the
/// last one after the last turn (settled: a position that ends the game is swept). Whether
/// each turn is unfinished (an extra turn still to play after its last action) goes with it.
///
/// # Errors
/// The number of the first turn (from 1) that does not play from where the earlier ones lead,
/// with the reason.
pub fn replay_turns(
    start: &Position,
    rules: &Rules,
    turns: &[Turn],
) -> Result<(Vec<Position>, Vec<bool>), (usize, String)> {
    let mut pos = *start;
    pos.settle(rules);
    let mut positions = vec![pos];
    let mut open = Vec::with_capacity(turns.len());
    for (k, turn) in turns.iter().enumerate() {
        if turn.moves().is_empty() {
            return Err((k + 1, "a turn has at least one action".to_string()));
        }
        let mut still = false;
        for (i, &mv) in turn.moves().iter().enumerate() {
            if i > 0 && !still {
                return Err((k + 1, format!("{turn} goes on after the turn has ended")));
            }
            let o = pos.play(rules, mv).map_err(|e| (k + 1, e.to_string()))?;
            still = o.extra_turn && o.ended.is_none();
        }
        open.push(still);
        positions.push(pos);
        if still && k + 1 < turns.len() {
            return Err((k + 2, format!("turn {} ({turn}) is not finished", k + 1)));
        }
    }
    Ok((positions, open))
}

/// Reviews the game of `turns` from `start` under the solver's rules: for each whole turn, the
/// best value of the position before it, a best turn and the value of the turn played (see the
/// module documentation for how). Positions are searched from the last to the first, on
/// `threads` threads ([`Solver::prove_parallel`]), each with the limits `limits()` makes just
/// before its search (see [`SearchLimits`]: a time limit is a deadline from its making). A
/// position not solved within them gives bounds ([`Valued::Between`]).
///
/// `keep_going(done, total)` is called before each search (`done` positions searched of
/// `total`); when it returns `false` (say, the user pressed Ctrl-C, which the solver's stop flag
/// also sees, or a deadline for the whole review has passed) the review ends there: the result
/// then holds the game's last turns only, those whose following position was reached. A turn
/// whose own search was stopped has the bounds it proved; the turn before the first position
/// searched (the one `keep_going` refused) has the bounds its seeds in play give
/// ([`crate::seed_bounds`]), tightened by the value of the turn played.
///
/// # Errors
/// The number of the first turn (from 1) that does not play, with the reason (see
/// [`replay_turns`]).
pub fn review_game(
    solver: &mut Solver,
    start: &Position,
    turns: &[Turn],
    threads: usize,
    limits: impl Fn() -> SearchLimits,
    mut keep_going: impl FnMut(usize, usize) -> bool,
) -> Result<GameReview, (usize, String)> {
    let rules = *solver.rules();
    let (positions, open) = replay_turns(start, &rules, turns)?;
    let n = turns.len();
    // Value of each position for its side to move, with a principal variation and the work.
    let mut values: Vec<Option<(Valued, Vec<Move>, Stats)>> = vec![None; n + 1];
    let last = &positions[n];
    if last.is_over() {
        values[n] = Some((
            Valued::Exact(last.store_diff(last.side())),
            Vec::new(),
            Stats::default(),
        ));
    }
    let total = (0..=n).filter(|&k| !positions[k].is_over()).count();
    let mut done = 0;
    let mut nodes = 0;
    let mut first = n + 1;
    for k in (0..=n).rev() {
        // The last position needs a search only when the game goes on from it.
        if positions[k].is_over() {
            first = k;
            if k < n {
                let p = &positions[k];
                values[k] = Some((
                    Valued::Exact(p.store_diff(p.side())),
                    Vec::new(),
                    Stats::default(),
                ));
            }
            continue;
        }
        if !keep_going(done, total) {
            // The turn played from here still has a value (bounded) if the position after it
            // was reached: not searched, this position has the bounds of its seeds.
            if k < n && values[k + 1].is_some() {
                let (lo, hi) = crate::search::seed_bounds(&positions[k], &rules);
                values[k] = Some((Valued::from_bounds(lo, hi), Vec::new(), Stats::default()));
                first = k;
            }
            break;
        }
        solver.set_limits(limits());
        let result = if threads > 1 {
            solver.prove_parallel(&positions[k], threads)
        } else {
            solver.prove(&positions[k])
        };
        done += 1;
        first = k;
        nodes += match &result {
            Ok(p) => p.stats.nodes,
            Err(SolveError::Stopped { stats, .. }) => stats.nodes,
        };
        values[k] = Some(match result {
            Ok(p) => (Valued::Exact(p.value), p.pv, p.stats),
            Err(SolveError::Stopped {
                lower,
                upper,
                stats,
            }) => (Valued::from_bounds(lower, upper), Vec::new(), stats),
        });
    }
    // A turn is worth at most its position's best: bounds of the turn played raise the lower
    // bound of a position left unsolved, from the last turn back, so that the turn before it
    // gets the tighter bound too.
    for k in (first..n).rev() {
        let played = match (&values[k], &values[k + 1]) {
            (Some(_), Some(next)) => {
                played_value(&positions[k], &positions[k + 1], open[k], next.0)
            }
            _ => continue,
        };
        if let Some(now) = values[k].as_mut() {
            let (lo, hi) = now.0.bounds();
            now.0 = Valued::from_bounds(lo.max(played.bounds().0).min(hi), hi);
        }
    }
    // The swapping turn is played by the person who began as North, from North; after it,
    // each person plays the other side.
    let swap_at = turns.iter().position(|t| t.moves().contains(&Move::Swap));
    let mut out = Vec::new();
    for k in first..n {
        let (Some(now), Some(next)) = (&values[k], &values[k + 1]) else {
            continue;
        };
        let before = positions[k];
        // ... and at most the best's upper bound.
        let (lo, hi) = played_value(&before, &positions[k + 1], open[k], next.0).bounds();
        let played_value = Valued::from_bounds(lo.min(now.0.bounds().1), hi.min(now.0.bounds().1));
        out.push(TurnReview {
            number: k + 1,
            before,
            player: match swap_at {
                Some(s) if k > s => before.side().opposite(),
                _ => before.side(),
            },
            turn: turns[k].clone(),
            open: open[k],
            best_value: now.0,
            best_turn: first_turn(&before, &rules, &now.1),
            played_value,
            stats: now.2,
        });
    }
    Ok(GameReview { turns: out, nodes })
}

/// What [`review_game`] found: the turns reviewed, and the work of every search made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameReview {
    /// The turns reviewed, in the game's order: all of them, or its last ones when the review
    /// was ended early.
    pub turns: Vec<TurnReview>,
    /// Nodes searched in all, including the search of the position after the last turn, which
    /// no turn's `stats` holds, and a search that was stopped.
    pub nodes: u64,
}

/// The value of a turn from `before` to `after` for the side that played it: the final store
/// difference if it ended the game, the value `next` of `after` if the turn is unfinished (the
/// same side to move), else minus it (the move handed over, a pie-rule swap too).
fn played_value(before: &Position, after: &Position, open: bool, next: Valued) -> Valued {
    if after.is_over() {
        Valued::Exact(after.store_diff(before.side()))
    } else if open {
        next
    } else {
        next.negated()
    }
}

/// The first whole turn of `pv` from `pos` (its actions up to the first that does not earn an
/// extra turn, or ends the game), `None` for an empty line.
fn first_turn(pos: &Position, rules: &Rules, pv: &[Move]) -> Option<Turn> {
    let mut p = *pos;
    let mut turn = Vec::new();
    for &mv in pv {
        turn.push(mv);
        let o = p.play(rules, mv).ok()?;
        if !(o.extra_turn && o.ended.is_none()) {
            break;
        }
    }
    (!turn.is_empty()).then_some(Turn(turn))
}

/// A reviewed turn as the front ends write it in JSON (`kalah review --json`, the web API's
/// `/api/review`): `{"turn", "side", "player", "position", "played", "open", "value", "best",
/// "best_value", "loss", "nodes"}`, and where only bounds were proven `"value_bounds"`,
/// `"best_value_bounds"` (`[lower, upper]`) and `"least_loss"`, and for a turn that changed the
/// result `"outcome_change"` (`["win", "draw"]`). `side` is the board side that played it (`S`
/// or `N`), `player` the side its player began on ([`TurnReview::player`]); values are final
/// store differences for the side that played the turn, `null` where not proven.
impl Serialize for TurnReview {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let r = self;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("turn", &r.number)?;
        m.serialize_entry("side", &r.before.side().letter().to_string())?;
        m.serialize_entry("player", &r.player.letter().to_string())?;
        m.serialize_entry("position", &r.before.to_string())?;
        m.serialize_entry("played", &r.turn.to_string())?;
        m.serialize_entry("open", &r.open)?;
        m.serialize_entry("value", &r.played_value.exact())?;
        m.serialize_entry("best", &r.best_turn.as_ref().map(Turn::to_string))?;
        m.serialize_entry("best_value", &r.best_value.exact())?;
        m.serialize_entry("loss", &r.loss())?;
        m.serialize_entry("nodes", &r.stats.nodes)?;
        if let Valued::Between(lo, hi) = r.played_value {
            m.serialize_entry("value_bounds", &[lo, hi])?;
        }
        if let Valued::Between(lo, hi) = r.best_value {
            m.serialize_entry("best_value_bounds", &[lo, hi])?;
            m.serialize_entry("least_loss", &r.least_loss())?;
        }
        if let Some((a, b)) = r.outcome_change() {
            m.serialize_entry("outcome_change", &[a.name(), b.name()])?;
        }
        m.end()
    }
}

/// One player's account of a review, as the front ends write it in JSON: his turns, mistakes
/// (turns that lost seeds), the seeds lost, the turns whose loss is not proven, and the numbers
/// of the turns that changed the result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayerSummary {
    /// Turns reviewed.
    pub turns: usize,
    /// Turns that lost seeds (proven).
    pub mistakes: usize,
    /// Seeds of final store difference lost in all (proven losses only).
    pub loss: i32,
    /// Turns whose loss is not proven (bounds only).
    pub unproven: usize,
    /// Numbers of the turns that changed the result ([`TurnReview::outcome_change`]).
    pub outcome_changes: Vec<usize>,
}

impl PlayerSummary {
    /// The account of the player who began as `side` ([`TurnReview::player`]) in `reviews`.
    pub fn of(reviews: &[TurnReview], side: Side) -> PlayerSummary {
        let mine: Vec<&TurnReview> = reviews.iter().filter(|r| r.player == side).collect();
        PlayerSummary {
            turns: mine.len(),
            mistakes: mine.iter().filter(|r| r.loss().unwrap_or(0) > 0).count(),
            loss: mine.iter().filter_map(|r| r.loss()).sum(),
            unproven: mine.iter().filter(|r| r.loss().is_none()).count(),
            outcome_changes: mine
                .iter()
                .filter(|r| r.outcome_change().is_some())
                .map(|r| r.number)
                .collect(),
        }
    }
}
