//! Property tests over random rule sets (every variant) and random reachable positions (random
//! playouts from random starts and from random setups): kalah-core against the independent
//! naive rules of `tests/common/naive.rs`, conservation of seeds, captures and extra turns,
//! notation and record round trips, undo, perft and divide, whole turns, flipping.

mod common;

use common::naive::{NMove, Naive};
use kalah_core::{
    divide, perft, perft_full, CaptureRule, EndRule, GameRecord, LeftoverRule, Move, Phase,
    Position, Rules, Setup, Side, Start, Turn,
};
use proptest::prelude::*;

fn rules_strategy() -> impl Strategy<Value = Rules> {
    (
        0..2u8,
        0..2u8,
        0..3u8,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(c, e, l, majority_end, pie, first_move_extra_turn)| Rules {
                capture: [CaptureRule::Standard, CaptureRule::Empty][c as usize],
                end: [EndRule::RowEmpty, EndRule::MoverBlocked][e as usize],
                leftovers: [
                    LeftoverRule::Owner,
                    LeftoverRule::Emptier,
                    LeftoverRule::Nobody,
                ][l as usize],
                majority_end,
                pie,
                first_move_extra_turn,
            },
        )
}

/// A random start: uniform Kalah(m,n) or a custom layout, mirrored or not, 1..=255 seeds.
fn start_strategy() -> impl Strategy<Value = Start> {
    prop_oneof![
        (1usize..=12, 1u32..=10)
            .prop_filter_map("too many seeds", |(m, n)| Start::uniform(m, n).ok()),
        (prop::collection::vec(0u8..=20, 1..=12), any::<bool>())
            .prop_filter_map("no seeds or too many", |(l, mir)| Start::layout(&l, mir)
                .ok()),
    ]
}

/// A random valid setup: 1..=12 houses, 1..=255 seeds spread at random (so big houses and
/// laps occur), a side to move and a phase that fits it.
fn setup_strategy() -> impl Strategy<Value = Setup> {
    (1usize..=12)
        .prop_flat_map(|m| {
            (
                Just(m),
                prop::collection::vec(0..2 * m + 2, 1..=255),
                any::<bool>(),
                0..4u8,
            )
        })
        .prop_map(|(m, seeds, north, phase)| {
            let mut pits = vec![0u8; 2 * m + 2];
            for b in seeds {
                pits[b] += 1;
            }
            // A side to move without seeds (all houses empty included) is a finished game: no
            // opening phase. South moves in the opening phases but the pie choice, North there.
            let south_empty = pits[..m].iter().all(|&x| x == 0);
            let north_empty = pits[m + 1..2 * m + 1].iter().all(|&x| x == 0);
            let phase = match [
                Phase::Normal,
                Phase::Opening,
                Phase::FirstTurn,
                Phase::PieChoice,
            ][phase as usize]
            {
                Phase::PieChoice if north_empty => Phase::Normal,
                Phase::Opening | Phase::FirstTurn if south_empty => Phase::Normal,
                p => p,
            };
            let to_move = match phase {
                Phase::Opening | Phase::FirstTurn => Side::South,
                Phase::PieChoice => Side::North,
                Phase::Normal => {
                    if north {
                        Side::North
                    } else {
                        Side::South
                    }
                }
            };
            Setup {
                pits,
                to_move: Some(to_move),
                phase,
            }
        })
}

/// A random starting point: a start layout or a setup, settled.
fn origin_strategy() -> impl Strategy<Value = (Rules, Position)> {
    (
        rules_strategy(),
        prop_oneof![
            start_strategy().prop_map(Err),
            setup_strategy().prop_map(Ok),
        ],
    )
        .prop_map(|(rules, s)| {
            let mut pos = match s {
                Err(start) => Position::start(&start, &rules),
                Ok(setup) => Position::from_setup(&setup).expect("valid setup"),
            };
            pos.settle(&rules);
            (rules, pos)
        })
}

fn to_naive(mv: Move) -> NMove {
    match mv {
        Move::Sow(h) => NMove::Sow(h as usize),
        Move::Swap => NMove::Swap,
    }
}

/// Plays `choices` (each picks among the legal actions) from `pos`; returns the actions.
fn playout(rules: &Rules, pos: &mut Position, choices: &[usize]) -> Vec<Move> {
    let mut played = Vec::new();
    for &c in choices {
        let legal = pos.legal_moves(rules);
        if legal.is_empty() {
            break;
        }
        let mv = legal[c % legal.len()];
        pos.play(rules, mv).unwrap();
        played.push(mv);
    }
    played
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 300,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Move by move, kalah-core and the naive rules agree on the position, the legal actions,
    /// the extra turn and the capture; seeds are conserved (but for leftovers=nobody at the
    /// end); a capture never gives an extra turn; a failed play changes nothing.
    #[test]
    fn agrees_with_the_naive_rules((rules, start) in origin_strategy(),
                                   choices in prop::collection::vec(any::<usize>(), 0..300)) {
        let mut pos = start;
        let mut naive = Naive::parse(&start.to_string());
        naive.settle(&rules);
        let total = pos.total_seeds();
        prop_assert_eq!(pos.to_string(), naive.notation());
        for c in choices {
            let legal = pos.legal_moves(&rules);
            let nlegal = naive.legal(&rules);
            prop_assert_eq!(legal.iter().map(|&m| to_naive(m)).collect::<Vec<_>>(), nlegal);
            prop_assert_eq!(legal.is_empty(), pos.is_over());
            // Illegal actions leave the position as it was.
            let saved = pos;
            for bad in [Move::Sow(0), Move::Sow(pos.houses() as u8 + 1), Move::Swap] {
                if !legal.contains(&bad) {
                    prop_assert!(pos.play(&rules, bad).is_err());
                    prop_assert_eq!(pos, saved);
                }
            }
            if legal.is_empty() {
                break;
            }
            let mv = legal[c % legal.len()];
            let mover = pos.side();
            let before = pos;
            let out = pos.play(&rules, mv).unwrap();
            // The copy-free child, the child sown into a copy and play_unchecked agree with
            // play; `before` is untouched.
            if let Move::Sow(h) = mv {
                let (child, o) = before.sown(&rules, h as usize);
                prop_assert_eq!(child, pos);
                prop_assert_eq!(o, out);
                // Sown into a copy made beforehand (the search's children made in place).
                let mut slot = before;
                prop_assert_eq!(before.sow_into(&mut slot, &rules, h as usize), out);
                prop_assert_eq!(slot, pos);
            }
            let mut unchecked = before;
            prop_assert_eq!(unchecked.play_unchecked(&rules, mv), out);
            prop_assert_eq!(unchecked, pos);
            prop_assert_eq!(before.after(&rules, mv).unwrap(), pos);
            naive.swept_rows = [0, 0];
            naive.swept_gains = [0, 0];
            let (extra, captured) = naive.play(&rules, to_naive(mv));
            // What the sweep found in the rows, and where the sweep put it.
            prop_assert_eq!(out.left.map(u32::from), naive.swept_rows);
            if let Some(reason) = out.ended {
                prop_assert_eq!(reason.sweep(&rules, naive.swept_rows), naive.swept_gains);
            }
            prop_assert_eq!(pos.to_string(), naive.notation(), "after {} under {}", mv, rules);
            prop_assert_eq!(out.extra_turn && !pos.is_over(), extra && !naive.over);
            prop_assert_eq!(out.captured as u32, captured);
            prop_assert!(!(out.captured > 0 && out.extra_turn), "capture with extra turn");
            if out.ended.is_none() {
                // A swap leaves the first player, now North, to move again.
                let next = if out.extra_turn || out.swapped { mover } else { mover.opposite() };
                prop_assert_eq!(pos.to_move(), Some(next));
            }
            if rules.leftovers == LeftoverRule::Nobody && pos.is_over() {
                prop_assert!(pos.total_seeds() <= total);
            } else {
                prop_assert_eq!(pos.total_seeds(), total);
            }
            prop_assert_eq!(pos.row_seeds(Side::South), pos.row(Side::South).iter().map(|&x| x as u32).sum::<u32>());
            prop_assert_eq!(pos.row_seeds(Side::North), pos.row(Side::North).iter().map(|&x| x as u32).sum::<u32>());
        }
    }

    /// Position notation, the setup form and flipping round-trip.
    #[test]
    fn positions_round_trip((rules, start) in origin_strategy(),
                            choices in prop::collection::vec(any::<usize>(), 0..150)) {
        let mut pos = start;
        playout(&rules, &mut pos, &choices);
        let text = pos.to_string();
        let back: Position = text.parse().unwrap();
        prop_assert_eq!(back.to_string(), text.clone());
        prop_assert_eq!(back.pits(), pos.pits());
        prop_assert_eq!(back.to_move(), pos.to_move());
        prop_assert_eq!(back.phase(), pos.phase());
        // A finished game keeps the side that would have moved (the view of its value), in the
        // text and in the setup.
        prop_assert_eq!(back, pos);
        prop_assert_eq!(back.side(), pos.side());
        let from_setup = Position::from_setup(&pos.to_setup()).unwrap();
        prop_assert_eq!(from_setup, pos);
        prop_assert_eq!(from_setup.side(), pos.side());
        // JSON (serde) form of a position is its notation.
        let json = serde_json::to_string(&pos).unwrap();
        prop_assert_eq!(json.clone(), format!("\"{text}\""));
        let from_json: Position = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(from_json.to_string(), text);
        // Flipping twice is the identity (opening phases are dropped by a flip).
        let flipped = pos.flipped();
        if pos.phase() == Phase::Normal {
            prop_assert_eq!(flipped.flipped(), pos);
        }
        prop_assert_eq!(flipped.store(Side::South), pos.store(Side::North));
        prop_assert_eq!(flipped.row(Side::North), pos.row(Side::South));
        prop_assert_eq!(flipped.store_diff(flipped.side()), pos.store_diff(pos.side()));
        prop_assert_eq!(flipped.legal_houses(), pos.legal_houses());
    }

    /// Rules, moves and turns print and parse back.
    #[test]
    fn rules_moves_and_turns_round_trip((rules, start) in origin_strategy(),
                                        choices in prop::collection::vec(any::<usize>(), 0..60)) {
        let text = rules.to_string();
        prop_assert_eq!(text.parse::<Rules>().unwrap(), rules);
        prop_assert_eq!(text.replace(' ', ",").parse::<Rules>().unwrap(), rules);
        let json = serde_json::to_string(&rules).unwrap();
        prop_assert_eq!(serde_json::from_str::<Rules>(&json).unwrap(), rules);
        let mut pos = start;
        playout(&rules, &mut pos, &choices);
        for mv in pos.legal_moves(&rules) {
            prop_assert_eq!(mv.to_string().parse::<Move>().unwrap(), mv);
        }
        for (turn, _) in Turn::all(&pos, &rules).into_iter().take(50) {
            prop_assert_eq!(turn.to_string().parse::<Turn>().unwrap(), turn);
        }
    }

    /// Every turn of `Turn::all` replays with `Turn::play` to the same position; the turns are
    /// distinct; each ends with the other side to move or the game over; a turn cut short or
    /// made longer is rejected without changing the position.
    #[test]
    fn whole_turns_replay((rules, start) in origin_strategy(),
                          choices in prop::collection::vec(any::<usize>(), 0..100)) {
        let mut pos = start;
        playout(&rules, &mut pos, &choices);
        let turns = Turn::all(&pos, &rules);
        prop_assert_eq!(turns.is_empty(), pos.legal_moves(&rules).is_empty());
        let mut seen = std::collections::HashSet::new();
        for (turn, after) in turns.iter().take(200) {
            prop_assert!(seen.insert(turn.clone()), "turn listed twice");
            let mut p = pos;
            p.settle(&rules);
            turn.play(&mut p, &rules).unwrap();
            prop_assert_eq!(p, *after);
            prop_assert!(p.is_over() || p.to_move() != pos.to_move() || turn.moves() == [Move::Swap]);
            if turn.moves().len() > 1 {
                let short = Turn(turn.moves()[..turn.moves().len() - 1].to_vec());
                let mut q = pos;
                prop_assert!(short.play(&mut q, &rules).is_err());
                prop_assert_eq!(q, pos);
            }
        }
    }

    /// perft(d) is the sum of divide(d); perft_full agrees; both match the naive rules.
    #[test]
    fn perft_is_the_sum_of_divide((rules, start) in origin_strategy(),
                                  choices in prop::collection::vec(any::<usize>(), 0..100),
                                  depth in 1u32..=4) {
        let mut pos = start;
        playout(&rules, &mut pos, &choices);
        let n = perft(&pos, &rules, depth);
        let parts = divide(&pos, &rules, depth);
        prop_assert_eq!(parts.iter().map(|p| p.1).sum::<u64>(), n);
        prop_assert_eq!(parts.iter().map(|p| p.0).collect::<Vec<_>>(), pos.legal_moves(&rules).to_vec());
        prop_assert_eq!(perft_full(&pos, &rules, depth), n);
        prop_assert_eq!(Naive::parse(&pos.to_string()).perft(&rules, depth), n);
        prop_assert_eq!(perft(&pos, &rules, 0), 1);
    }

    /// Game records round-trip in text and JSON; the replayed positions and result agree.
    #[test]
    fn records_round_trip((rules, start) in origin_strategy(),
                          choices in prop::collection::vec(any::<usize>(), 0..200),
                          south in "[ -~]{0,20}", north in "[ -~é]{0,12}",
                          comments in prop::collection::vec((any::<usize>(), "[ -~é]{0,16}"), 0..5)) {
        prop_assume!(!start.is_over());
        let mut pos = start;
        let moves = playout(&rules, &mut pos, &choices);
        let mut rec = GameRecord::from_moves(rules, start, &moves).unwrap();
        rec.south = south;
        rec.north = north;
        // Comments among the turns, as the text reader gives them: in the order of their
        // places, no white space at their ends.
        let places = rec.turns().len() + 1;
        let mut comments: Vec<(usize, String)> = comments
            .into_iter()
            .map(|(k, text)| (k % places, text.trim_end().to_string()))
            .collect();
        comments.sort_by_key(|c| c.0);
        rec.comments = comments;
        prop_assert_eq!(rec.position(), pos);
        prop_assert_eq!(rec.positions().len(), moves.len() + 1);
        let turns: Vec<Move> = rec.turns().iter().flat_map(|t| t.turn.moves().to_vec()).collect();
        prop_assert_eq!(&turns, &moves);
        let text = rec.to_text();
        let back = GameRecord::parse_text(&text).unwrap();
        prop_assert_eq!(&back, &rec, "text:\n{}", text);
        prop_assert_eq!(back.to_text(), text);
        let json = rec.to_json();
        let back = GameRecord::parse_json(&json).unwrap();
        prop_assert_eq!(&back, &rec, "json:\n{}", json);
        prop_assert_eq!(rec.result(), pos.score(&rules));
        // Undo: popping every action walks back through the same positions.
        let positions = rec.positions();
        for i in (0..moves.len()).rev() {
            prop_assert_eq!(rec.pop(), Some(moves[i]));
            prop_assert_eq!(rec.position(), positions[i]);
        }
    }
}
