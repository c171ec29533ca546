//! Game review ([`kalah_solver::review`]): each turn's values against a per-turn analysis of its
//! position, under every rule variant with whole turns, unfinished last turns and pie-rule swaps.

use kalah_core::{CaptureRule, EndRule, LeftoverRule, Move, Position, Rules, Side, Start, Turn};
use kalah_solver::review::{replay_turns, review_game, Outcome, TurnReview, Valued};
use kalah_solver::{SearchLimits, Solver};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A random game from the start of Kalah(`m`,`n`): random whole turns until the game ends or a
/// random stop; sometimes the last turn is cut after an action that earns an extra turn.
fn random_game(rng: &mut StdRng, rules: &Rules, m: usize, n: u32) -> (Position, Vec<Turn>) {
    let start = Position::start(&Start::uniform(m, n).unwrap(), rules);
    let mut pos = start;
    let mut turns = Vec::new();
    let stop_at = rng.gen_range(1..24);
    while !pos.is_over() && turns.len() < stop_at {
        let all = Turn::all(&pos, rules);
        let (turn, after) = all[rng.gen_range(0..all.len())].clone();
        turns.push(turn);
        pos = after;
    }
    if !pos.is_over() && rng.gen_bool(0.5) {
        // An unfinished last turn: the first action of some turn that earns an extra turn.
        let all = Turn::all(&pos, rules);
        if let Some((t, _)) = all.iter().find(|(t, _)| t.moves().len() > 1) {
            turns.push(Turn(vec![t.moves()[0]]));
        }
    }
    (start, turns)
}

fn every_rules() -> Vec<Rules> {
    let mut v = Vec::new();
    for capture in [CaptureRule::Standard, CaptureRule::Empty] {
        for end in [EndRule::RowEmpty, EndRule::MoverBlocked] {
            for leftovers in [
                LeftoverRule::Owner,
                LeftoverRule::Emptier,
                LeftoverRule::Nobody,
            ] {
                for (pie, first) in [(false, true), (true, true), (false, false)] {
                    v.push(Rules {
                        capture,
                        end,
                        leftovers,
                        majority_end: false,
                        pie,
                        first_move_extra_turn: first,
                    });
                }
            }
        }
    }
    v.push(Rules {
        majority_end: true,
        ..Rules::default()
    });
    v
}

#[test]
fn each_turns_values_are_those_of_an_analysis_of_its_position() {
    let mut rng = StdRng::seed_from_u64(7);
    let mut checked = 0;
    let mut mistakes = 0;
    let mut open_turns = 0;
    let mut swaps = 0;
    for rules in every_rules() {
        let mut solver = Solver::new(rules, 4);
        let mut oracle = Solver::new(rules, 4);
        for g in 0..8 {
            let (m, n) = [(3, 2), (3, 3), (4, 2), (4, 3), (2, 4), (3, 4)][g % 6];
            let (start, turns) = random_game(&mut rng, &rules, m, n);
            let reviews = review_game(
                &mut solver,
                &start,
                &turns,
                1,
                SearchLimits::default,
                |_, _| true,
            )
            .unwrap()
            .turns;
            assert_eq!(reviews.len(), turns.len(), "{rules:?} {turns:?}");
            for r in &reviews {
                let all = oracle.analyze_turns(&r.before).unwrap();
                let best = all.iter().map(|t| t.value).max().unwrap();
                assert_eq!(r.best_value, Valued::Exact(best), "{} {}", r.before, r.turn);
                // The played turn's value: the analysis's for a whole turn, the best of the
                // whole turns it begins for an unfinished one.
                let played = all
                    .iter()
                    .filter(|t| {
                        if r.open {
                            t.turn.moves().starts_with(r.turn.moves())
                                && t.turn.moves().len() > r.turn.moves().len()
                        } else {
                            t.turn == r.turn
                        }
                    })
                    .map(|t| t.value)
                    .max()
                    .unwrap();
                assert_eq!(
                    r.played_value,
                    Valued::Exact(played),
                    "{} {}",
                    r.before,
                    r.turn
                );
                let bt = r.best_turn.as_ref().expect("a best turn");
                let bt_value = all
                    .iter()
                    .find(|t| &t.turn == bt)
                    .expect("a legal turn")
                    .value;
                assert_eq!(bt_value, best, "{} best {}", r.before, bt);
                assert_eq!(r.loss(), Some(best - played));
                assert_eq!(r.least_loss(), best - played);
                checked += 1;
                mistakes += usize::from(best > played);
                open_turns += usize::from(r.open);
                swaps += usize::from(r.turn.moves() == [Move::Swap]);
            }
        }
    }
    // The games covered what the review must handle.
    assert!(checked > 1000, "{checked}");
    assert!(mistakes > 100, "{mistakes}");
    assert!(open_turns > 10, "{open_turns}");
    assert!(swaps > 3, "{swaps}");
}

#[test]
fn a_hand_checked_game_of_kalah_2_1() {
    // Kalah(2,1) from 1,1,0,1,1,0 S. South has two whole turns:
    // - 2-1: house 2's seed reaches the store (extra turn); house 1's seed then lands in house 2,
    //   empty, and captures it with North's house 1 (facing South's 2): South's store 3, South's
    //   row empty, North sweeps its house 2: 3 to 1, +2.
    // - 1: house 1's seed joins house 2 (2 seeds) and hands over. North's 1 (into its house 2)
    //   or 2-1 (store, then house 1 into its empty house 2, facing South's empty house 1: no
    //   capture) both leave South only house 2, whose 2 seeds go to the store and North's house
    //   1, emptying South's row: North sweeps 3, South has 1: -2.
    let rules = Rules::default();
    let start: Position = "1,1,0,1,1,0 S".parse().unwrap();
    let mut solver = Solver::new(rules, 1);
    let turns = vec![Turn(vec![Move::Sow(1)])];
    let reviews = review_game(
        &mut solver,
        &start,
        &turns,
        1,
        SearchLimits::default,
        |_, _| true,
    )
    .unwrap()
    .turns;
    assert_eq!(reviews.len(), 1);
    let r = &reviews[0];
    assert_eq!(r.number, 1);
    assert!(!r.open);
    assert_eq!(r.best_value, Valued::Exact(2));
    assert_eq!(r.best_turn, Some(Turn(vec![Move::Sow(2), Move::Sow(1)])));
    assert_eq!(r.played_value, Valued::Exact(-2));
    assert_eq!(r.loss(), Some(4));
    assert_eq!(r.outcome_change(), Some((Outcome::Win, Outcome::Loss)));
    // The best turn played instead: no loss, and the game over after it.
    let turns = vec![Turn(vec![Move::Sow(2), Move::Sow(1)])];
    let reviews = review_game(
        &mut solver,
        &start,
        &turns,
        1,
        SearchLimits::default,
        |_, _| true,
    )
    .unwrap()
    .turns;
    assert_eq!(reviews[0].played_value, Valued::Exact(2));
    assert_eq!(reviews[0].loss(), Some(0));
    assert_eq!(reviews[0].outcome_change(), None);
}

#[test]
fn a_stopped_search_gives_bounds_that_hold_the_value() {
    let rules = Rules::default();
    let mut rng = StdRng::seed_from_u64(3);
    let (start, turns) = loop {
        let g = random_game(&mut rng, &rules, 5, 4);
        if g.1.len() >= 8 {
            break g;
        }
    };
    let mut exact = Solver::new(rules, 16);
    let full = review_game(
        &mut exact,
        &start,
        &turns,
        1,
        SearchLimits::default,
        |_, _| true,
    )
    .unwrap()
    .turns;
    let mut limited = Solver::new(rules, 16);
    let part = review_game(
        &mut limited,
        &start,
        &turns,
        1,
        || SearchLimits::new(None, Some(2_000)),
        |_, _| true,
    )
    .unwrap()
    .turns;
    assert_eq!(part.len(), full.len());
    let mut bounded = 0;
    for (p, f) in part.iter().zip(&full) {
        let v = f.best_value.exact().unwrap();
        let (lo, hi) = p.best_value.bounds();
        assert!(
            lo <= v && v <= hi,
            "turn {}: {v} not in {lo}..={hi}",
            p.number
        );
        let v = f.played_value.exact().unwrap();
        let (lo, hi) = p.played_value.bounds();
        assert!(
            lo <= v && v <= hi,
            "turn {}: {v} not in {lo}..={hi}",
            p.number
        );
        assert!(p.least_loss() <= f.loss().unwrap());
        // A turn is worth at most its position's best: the bounds say so too.
        assert!(
            p.best_value.bounds().0 >= p.played_value.bounds().0,
            "turn {}",
            p.number
        );
        assert!(
            p.played_value.bounds().1 <= p.best_value.bounds().1,
            "turn {}",
            p.number
        );
        if p.best_value.exact().is_none() {
            bounded += 1;
            assert_eq!(p.loss(), None);
            assert_eq!(p.best_turn, None);
        }
    }
    // Kalah(5,4)'s opening positions take far more than 2 000 nodes.
    assert!(bounded > 0);
}

#[test]
fn a_review_stopped_early_keeps_the_last_turns() {
    let rules = Rules::default();
    let start = Position::start(&Start::uniform(3, 3).unwrap(), &rules);
    let mut pos = start;
    let mut turns = Vec::new();
    while !pos.is_over() {
        let (t, after) = Turn::all(&pos, &rules).swap_remove(0);
        turns.push(t);
        pos = after;
    }
    assert!(turns.len() >= 4, "{turns:?}");
    let mut solver = Solver::new(rules, 1);
    let mut calls = Vec::new();
    let reviews = review_game(
        &mut solver,
        &start,
        &turns,
        1,
        SearchLimits::default,
        |done, total| {
            calls.push((done, total));
            done < 2
        },
    )
    .unwrap()
    .turns;
    // Two positions searched, the last two turns reviewed (the last position is over), and
    // the turn before them, whose position was not searched: the bounds of its seeds, raised
    // to the value of the turn played there.
    let n = turns.len();
    assert_eq!(
        reviews.iter().map(|r| r.number).collect::<Vec<_>>(),
        vec![n - 2, n - 1, n]
    );
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[0], (0, n));
    let r = &reviews[0];
    let played = r
        .played_value
        .exact()
        .expect("the position after it was solved");
    let (_, hi) = kalah_solver::seed_bounds(&r.before, &rules);
    assert_eq!(r.best_value, Valued::from_bounds(played, hi));
    assert_eq!(r.best_turn, None);
    assert_eq!(r.stats.nodes, 0);
}

#[test]
fn players_follow_a_pie_rule_swap() {
    let rules = Rules {
        pie: true,
        ..Rules::default()
    };
    let start = Position::start(&Start::uniform(3, 3).unwrap(), &rules);
    let turns: Vec<Turn> = ["2", "swap", "1", "1"]
        .iter()
        .map(|t| t.parse().unwrap())
        .collect();
    let (positions, _) = replay_turns(&start, &rules, &turns).unwrap();
    let mut solver = Solver::new(rules, 1);
    let reviews = review_game(
        &mut solver,
        &start,
        &turns,
        1,
        SearchLimits::default,
        |_, _| true,
    )
    .unwrap()
    .turns;
    assert_eq!(reviews.len(), 4);
    let sides: Vec<Side> = reviews.iter().map(|r| r.before.side()).collect();
    let who: Vec<Side> = reviews.iter().map(|r| r.player).collect();
    // The person who began as North swaps, then plays South; the other plays North.
    assert_eq!(who[0], Side::South);
    assert_eq!(who[1], Side::North);
    assert_eq!(who[2], sides[2].opposite());
    assert_eq!(who[3], sides[3].opposite());
    assert_eq!(positions.len(), 5);
    // The swap's value is minus the swapped position's for its side to move.
    let v = solver.value(&positions[2]).unwrap();
    assert_eq!(reviews[1].played_value, Valued::Exact(-v));
}

#[test]
fn a_game_that_does_not_replay_names_its_turn() {
    let rules = Rules::default();
    let start = Position::start(&Start::uniform(6, 4).unwrap(), &rules);
    let turns: Vec<Turn> = ["3-6", "7"].iter().map(|t| t.parse().unwrap()).collect();
    let e = replay_turns(&start, &rules, &turns).unwrap_err();
    assert_eq!(e.0, 2, "{e:?}");
    let turns: Vec<Turn> = ["3", "1"].iter().map(|t| t.parse().unwrap()).collect();
    // 3 earns an extra turn: the first turn is not finished, and another follows it.
    let e = replay_turns(&start, &rules, &turns).unwrap_err();
    assert_eq!(e.0, 2, "{e:?}");
    assert!(e.1.contains("not finished"), "{e:?}");
    let turns: Vec<Turn> = ["1-2"].iter().map(|t| t.parse().unwrap()).collect();
    let e = replay_turns(&start, &rules, &turns).unwrap_err();
    assert_eq!(e.0, 1, "{e:?}");
    assert!(e.1.contains("ended"), "{e:?}");
}

#[test]
fn outcome_changes_are_named() {
    let r = |best: i32, played: i32| TurnReview {
        number: 1,
        before: "1,1,0,1,1,0 S".parse().unwrap(),
        player: Side::South,
        turn: Turn(vec![Move::Sow(1)]),
        open: false,
        best_value: Valued::Exact(best),
        best_turn: None,
        played_value: Valued::Exact(played),
        stats: Default::default(),
    };
    assert_eq!(
        r(2, 0).outcome_change(),
        Some((Outcome::Win, Outcome::Draw))
    );
    assert_eq!(
        r(0, -2).outcome_change(),
        Some((Outcome::Draw, Outcome::Loss))
    );
    assert_eq!(r(4, 2).outcome_change(), None);
    assert_eq!(r(-2, -6).outcome_change(), None);
}
