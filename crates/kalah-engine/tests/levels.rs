//! The engine's levels: legal choices, exact hints, and `perfect` never losing a won game.

use std::time::Duration;

use kalah_core::{CaptureRule, Position, Rules, Side, Start};
use kalah_engine::{Engine, Level, Limits};
use kalah_solver::Solver;

/// Plays a whole game; `engines[0]` is South. Returns the final position.
fn play(mut pos: Position, rules: &Rules, engines: &mut [Engine; 2]) -> Position {
    let limits = Limits {
        time: Some(Duration::from_millis(500)),
        nodes: None,
    };
    let mut plies = 0;
    while let Some(side) = pos.to_move() {
        let choice = engines[side.index()]
            .choose_with(&pos, rules, limits)
            .expect("a move while the game goes on");
        pos.play(rules, choice.mv).expect("a legal move");
        plies += 1;
        assert!(plies < 1000);
    }
    pos
}

#[test]
fn perfect_keeps_every_proven_win_against_every_level() {
    let mut games = 0;
    for (m, n) in [(3, 3), (4, 3), (4, 2), (3, 4), (5, 2)] {
        for capture in [CaptureRule::Standard, CaptureRule::Empty] {
            let rules = Rules {
                capture,
                ..Rules::default()
            };
            let start = Position::start(&Start::uniform(m, n).unwrap(), &rules);
            let value = Solver::new(rules, 8).value(&start).unwrap();
            // The perfect side: South if South wins (or draws), else North.
            let perfect_side = if value >= 0 { Side::South } else { Side::North };
            let proven = value.abs();
            for (i, level) in Level::ALL.into_iter().enumerate() {
                let other = Engine::with_seed(level, 17 + i as u64);
                let perfect = Engine::with_seed(Level::Perfect, 1);
                let mut engines = if perfect_side == Side::South {
                    [perfect, other]
                } else {
                    [other, perfect]
                };
                let end = play(start, &rules, &mut engines);
                let margin = end.store_diff(perfect_side);
                assert!(
                    margin >= proven,
                    "Kalah({m},{n}) {capture}: perfect as {perfect_side} vs {level} ended {margin:+}, proven {proven:+}"
                );
                games += 1;
            }
        }
    }
    assert_eq!(games, 60);
}

#[test]
fn every_level_plays_legal_moves_and_weaker_levels_vary() {
    let rules = Rules::default();
    let start = Position::start(&Start::default(), &rules);
    for level in Level::ALL {
        let mut e = Engine::with_seed(level, 3);
        let c = e
            .choose_with(
                &start,
                &rules,
                Limits {
                    time: Some(Duration::from_millis(200)),
                    nodes: None,
                },
            )
            .unwrap();
        assert!(start.legal_moves(&rules).contains(&c.mv), "{level}");
        assert_eq!(c.pv.first(), Some(&c.mv), "{level}");
        // A level that searches says how many nodes, the noisy ones too (they said 0).
        assert_eq!(c.nodes > 0, c.depth > 0, "{level}: {c:?}");
    }
    // Same seed, same choices; the beginner is not deterministic across seeds.
    let choices = |seed| {
        let mut e = Engine::with_seed(Level::Beginner, seed);
        let mut pos = start;
        let mut out = Vec::new();
        for _ in 0..8 {
            let Some(c) = e.choose(&pos, &rules) else {
                break;
            };
            pos.play(&rules, c.mv).unwrap();
            out.push(c.mv);
        }
        out
    };
    assert_eq!(choices(1), choices(1));
    assert!((2..12).any(|s| choices(s) != choices(1)));
}

/// A node limit with a time too long to be an instant (the way to ask for nodes only, since no
/// time means the level's default) panicked with "overflow when adding duration to instant".
#[test]
fn a_node_limit_with_the_longest_time_does_not_panic() {
    let rules = Rules::default();
    let start = Position::start(&Start::default(), &rules);
    let limits = Limits {
        time: Some(Duration::MAX),
        nodes: Some(20_000),
    };
    for level in [Level::Easy, Level::Expert, Level::Perfect] {
        let c = Engine::with_seed(level, 1)
            .choose_with(&start, &rules, limits)
            .unwrap();
        assert!(start.legal_moves(&rules).contains(&c.mv), "{level}");
    }
    let hint = Engine::new(Level::Perfect).hint(&start, &rules, limits);
    assert_eq!(hint.len(), 6);
}

/// `hint_with_nodes` gives `hint`'s values and the nodes searched: with a node limit alone, the
/// same twice (a fresh engine each time), within the documented bound (the exact attempt's
/// `n`, then `n` more shared among the actions by the estimates, each search stopping at its
/// first check, every 1 024 nodes, at or past its limit); the nodes of a proven hint too, on
/// one thread and on two.
#[test]
fn a_hint_reports_its_nodes_and_repeats_under_a_node_limit() {
    let rules = Rules::default();
    let start = Position::start(&Start::default(), &rules);
    let n = 20_000;
    let limits = Limits {
        time: Some(Duration::MAX),
        nodes: Some(n),
    };
    let (values, nodes) = Engine::new(Level::Perfect).hint_with_nodes(&start, &rules, limits);
    assert_eq!(values.len(), 6);
    assert!(values.iter().all(|v| !v.exact), "{values:?}");
    // The exact attempt used its limit, and the estimates theirs.
    assert!(nodes > n && nodes <= 2 * n + 7 * 1024, "{nodes}");
    assert_eq!(
        Engine::new(Level::Perfect).hint_with_nodes(&start, &rules, limits),
        (values.clone(), nodes)
    );
    assert_eq!(
        Engine::new(Level::Perfect).hint(&start, &rules, limits),
        values
    );
    // A hint proven within the limit: its analysis's nodes, on one thread or two.
    let pos: Position = "1,0,3,2,0,4,5,1,0,2,0,0,3,6 N".parse().unwrap();
    let generous = Limits {
        time: Some(Duration::from_secs(10)),
        nodes: None,
    };
    for threads in [1, 2] {
        let mut e = Engine::new(Level::Perfect);
        e.set_threads(threads);
        let (values, nodes) = e.hint_with_nodes(&pos, &rules, generous);
        assert!(values.iter().all(|v| v.exact), "{threads}: {values:?}");
        assert!(nodes > 0, "{threads}");
    }
    let over: Position = "0,0,0,10,0,0,0,14".parse().unwrap();
    assert_eq!(
        Engine::new(Level::Perfect).hint_with_nodes(&over, &rules, limits),
        (Vec::new(), 0)
    );
}

#[test]
fn hint_is_exact_when_quick() {
    let rules = Rules::default();
    let pos: Position = "1,0,3,2,0,4,5,1,0,2,0,0,3,6 N".parse().unwrap();
    let mut e = Engine::new(Level::Perfect);
    // A generous budget: the machine running the tests may be busy.
    let limits = Limits {
        time: Some(Duration::from_secs(10)),
        nodes: None,
    };
    let hint = e.hint(&pos, &rules, limits);
    assert_eq!(hint.len(), pos.legal_moves(&rules).len());
    assert!(hint.iter().all(|h| h.exact));
    let exact = Solver::new(rules, 8).analyze_moves(&pos).unwrap();
    for (h, x) in hint.iter().zip(&exact) {
        assert_eq!((h.mv, h.value), (x.mv, x.value));
    }
    let choice = e.choose_with(&pos, &rules, limits).unwrap();
    assert!(choice.exact);
    assert_eq!(
        choice.value,
        Some(exact.iter().map(|x| x.value).max().unwrap())
    );
    // A finished game has no hint and no choice.
    let over: Position = "0,0,0,10,0,0,0,14".parse().unwrap();
    assert!(e.hint(&over, &rules, Limits::default()).is_empty());
    assert!(e.choose(&over, &rules).is_none());
}

#[test]
fn level_names_round_trip() {
    for level in Level::ALL {
        assert_eq!(level.name().parse::<Level>().unwrap(), level);
    }
    assert!("grandmaster".parse::<Level>().is_err());
}

/// The table size can be set (library tester: it was fixed by the level); a table of another
/// size gives the same proven values.
#[test]
fn the_table_size_can_be_set_and_proofs_stay_the_same() {
    let rules = Rules::default();
    let pos = Position::start(&Start::uniform(4, 3).unwrap(), &rules);
    let want = Solver::new(rules, 1).value(&pos).unwrap();
    let limits = Limits {
        time: None,
        nodes: None,
    };
    let mut e = Engine::with_seed(Level::Perfect, 1);
    assert_eq!(e.table_mib(), kalah_solver::DEFAULT_TT_MIB);
    let before = e.choose_with(&pos, &rules, limits).unwrap();
    for mib in [0, 1, 256] {
        e.set_table_mib(mib);
        assert_eq!(e.table_mib(), mib.max(1));
        let c = e.choose_with(&pos, &rules, limits).unwrap();
        assert!(c.exact, "{mib} MiB");
        assert_eq!(
            (c.value, before.value),
            (Some(want), Some(want)),
            "{mib} MiB"
        );
    }
    assert_eq!(Engine::new(Level::Beginner).table_mib(), 1);
}

#[test]
fn perfect_with_no_time_left_after_its_proof_answers_from_its_first_depths() {
    // Kalah(6,4) from the start cannot be proven in no time: the depth-limited search gets what
    // is left of the budget, nothing here, so it stops after its first depths (depth 1 always
    // completes). A floor of 10 ms made it search far deeper, and a 1 ms move take 10 ms.
    let rules = Rules::default();
    let start = Position::start(&Start::uniform(6, 4).unwrap(), &rules);
    let mut engine = Engine::new(Level::Perfect);
    let limits = Limits {
        time: Some(Duration::ZERO),
        nodes: None,
    };
    let choice = engine.choose_with(&start, &rules, limits).unwrap();
    assert!(!choice.exact);
    assert!(start.legal_moves(&rules).contains(&choice.mv));
    assert!(
        (1..=3).contains(&choice.depth),
        "depth {} in no time",
        choice.depth
    );
}

/// A move the engine says is proven (`exact`) is a best move, also after a hint filled its table
/// with proven values (tester 70: after a hint at Kalah(3,3)'s start, `hard` played house 1 of
/// `4,3,0,1,0,5,4,1 S` as a proven -4; house 1 is worth -8, house 2 -4).
#[test]
fn a_move_said_to_be_proven_after_a_hint_is_a_best_move() {
    let rules = Rules::default();
    let start = Position::start(&Start::uniform(3, 3).unwrap(), &rules);
    let pos: Position = "4,3,0,1,0,5,4,1 S".parse().unwrap();
    let truth = Solver::new(rules, 1).analyze_moves(&pos).unwrap();
    let value = truth.iter().map(|s| s.value).max().unwrap();
    let limits = Limits {
        time: Some(Duration::from_millis(500)),
        nodes: None,
    };
    for level in [Level::Medium, Level::Hard, Level::Expert] {
        let mut engine = Engine::with_seed(level, 1);
        assert_eq!(engine.hint(&start, &rules, limits).len(), 3);
        let c = engine.choose_with(&pos, &rules, limits).unwrap();
        let of_move = truth.iter().find(|s| s.mv == c.mv).unwrap().value;
        if c.exact {
            assert_eq!(c.value, Some(value), "{level:?}: {c:?}");
            assert_eq!(of_move, value, "{level:?} played {} as proven: {c:?}", c.mv);
        }
        // Here a proven best move is at hand: the engine plays it.
        assert_eq!(of_move, value, "{level:?} played {}: {c:?}", c.mv);
    }
}

/// An action that ends the game is proven at every level, whatever the search proved of the
/// others, and when there was no search (tester 78: `medium` said `exact: false` of a move that
/// passes half the seeds under the majority end, `expert` of one under `end=mover-blocked`;
/// tester 96: a lone game-ending action had no value below `perfect`).
#[test]
fn an_action_that_ends_the_game_is_proven_at_every_level() {
    use kalah_core::{EndRule, LeftoverRule};
    let cases = [
        (
            Rules {
                leftovers: LeftoverRule::Emptier,
                majority_end: true,
                ..Rules::default()
            },
            "0,0,3,3,1,3,8,0,1,0,3,1,2,25 N",
        ),
        (
            Rules {
                leftovers: LeftoverRule::Emptier,
                ..Rules::default()
            },
            "1,0,0,3,0,17,0,0,0,3,0,15 S",
        ),
        (
            Rules {
                end: EndRule::MoverBlocked,
                leftovers: LeftoverRule::Nobody,
                majority_end: true,
                ..Rules::default()
            },
            "2,1,0,2,3,0,20,3,2,0,0,3,1,9 S",
        ),
        // The only legal action ends the game (tester 96: no value below `perfect`).
        (Rules::default(), "0,0,1,0,2,2,2,0 S"),
    ];
    let mut ending = 0;
    for (rules, text) in cases {
        let pos: Position = text.parse().unwrap();
        let me = pos.to_move().unwrap();
        for level in Level::ALL {
            for seed in 0..4 {
                let mut engine = Engine::with_seed(level, seed);
                let c = engine
                    .choose_with(
                        &pos,
                        &rules,
                        Limits {
                            time: None,
                            nodes: Some(2000),
                        },
                    )
                    .unwrap();
                let mut after = pos;
                after.play(&rules, c.mv).unwrap();
                // Random and only actions too.
                if after.is_over() {
                    ending += 1;
                    assert!(c.exact, "{level:?} {text} under {rules}: {c:?}");
                    assert_eq!(
                        c.value,
                        Some(after.store_diff(me)),
                        "{level:?} {text}: {c:?}"
                    );
                }
            }
        }
    }
    // The searching levels chose a game-ending action in every case (as the tester saw), and
    // every level the lone one.
    assert!(ending >= 3 * 4 * 4 + Level::ALL.len() * 4, "{ending}");
}

/// Self-play with hints between the moves, as the terminal and web front ends drive the
/// engine: every value a hint or a choice says is proven is the exact value (of the action;
/// for a level without randomness, of the position, the action a best one). Node limits keep
/// the games the same on every machine. (It fails on the solver before tester 70's fix: a
/// choice claimed a proven value its move did not reach.)
#[test]
fn values_said_to_be_proven_in_self_play_with_hints_are_exact() {
    use kalah_core::{EndRule, LeftoverRule};
    let mut claims = 0;
    for capture in [CaptureRule::Standard, CaptureRule::Empty] {
        for leftovers in [LeftoverRule::Owner, LeftoverRule::Nobody] {
            for (end, pie) in [(EndRule::RowEmpty, false), (EndRule::MoverBlocked, true)] {
                let rules = Rules {
                    capture,
                    leftovers,
                    end,
                    pie,
                    ..Rules::default()
                };
                for (j, (m, n)) in [(3, 3), (4, 2), (2, 4)].repeat(20).into_iter().enumerate() {
                    let i = j % 3;
                    let limits = Limits {
                        time: None,
                        nodes: Some([300, 2000, 20_000][i]),
                    };
                    let mut engines = [
                        Engine::with_seed([Level::Medium, Level::Hard][j % 2], j as u64),
                        Engine::with_seed([Level::Expert, Level::Easy, Level::Medium][i], 99),
                    ];
                    let mut pos = Position::start(&Start::uniform(m, n).unwrap(), &rules);
                    let mut ply = 0;
                    while !pos.is_over() {
                        let truth = Solver::new(rules, 1).analyze_moves(&pos).unwrap();
                        let value = truth.iter().map(|s| s.value).max().unwrap();
                        let of = |mv| truth.iter().find(|s| s.mv == mv).unwrap().value;
                        // Both engines hint now and then, so that each one's table holds
                        // proven values of positions before the ones it plays.
                        for e in engines.iter_mut().filter(|_| ply % 3 != 2) {
                            for h in e.hint(&pos, &rules, limits).into_iter().filter(|h| h.exact) {
                                assert_eq!(h.value, of(h.mv), "{pos} under {rules}: {h:?}");
                                claims += 1;
                            }
                        }
                        let e = &mut engines[ply % 2];
                        // The first plies are set by the game's number: different games.
                        if ply < 3 {
                            let legal = pos.legal_moves(&rules);
                            pos.play(&rules, legal[(j / 3 + ply * 7) % legal.len()])
                                .unwrap();
                            ply += 1;
                            continue;
                        }
                        let c = e.choose_with(&pos, &rules, limits).unwrap();
                        let mut after = pos;
                        after.play(&rules, c.mv).unwrap();
                        // An action that ends the game is proven whether or not it is best
                        // (one picked without a search claims no value at all).
                        assert!(
                            c.exact || c.value.is_none() || !after.is_over(),
                            "{pos} under {rules}: {c:?}"
                        );
                        if c.exact {
                            claims += 1;
                            assert_eq!(c.value, Some(of(c.mv)), "{pos} under {rules}: {c:?}");
                            if e.level() != Level::Easy && !after.is_over() {
                                assert_eq!(of(c.mv), value, "{pos} under {rules}: {c:?}");
                            }
                        }
                        pos.play(&rules, c.mv).unwrap();
                        ply += 1;
                    }
                }
            }
        }
    }
    assert!(claims >= 800, "{claims} claims");
}

/// `perfect` proves the value and one best action, not every best action: on Kalah(9,1) from
/// the start, where six actions keep the value, a node limit between the two costs gives a proven
/// choice within the proof's nodes (the list of best actions used to take the whole limit before
/// a search answered from the table; on Kalah(8,2) the list takes some 25 s after a 1 s proof).
#[test]
fn perfect_proves_a_best_action_without_listing_every_one() {
    let rules = Rules::default();
    let start = Position::start(&Start::uniform(9, 1).unwrap(), &rules);
    let mut engine = Engine::with_seed(Level::Perfect, 1);
    engine.set_threads(1);
    let mut solver = Solver::new(rules, engine.table_mib());
    let sol = solver.solve(&start).unwrap();
    solver.clear_table();
    let proof = solver.prove(&start).unwrap();
    assert!(proof.stats.nodes * 2 < sol.stats.nodes);
    let limits = Limits {
        time: Some(Duration::from_secs(600)),
        nodes: Some(proof.stats.nodes + (sol.stats.nodes - proof.stats.nodes) / 2),
    };
    let choice = engine.choose_with(&start, &rules, limits).unwrap();
    assert!(choice.exact, "{choice:?} within {limits:?}");
    assert_eq!(choice.value, Some(sol.value));
    assert!(
        sol.best.contains(&choice.mv),
        "{choice:?}, best {:?}",
        sol.best
    );
    // The proof's nodes, not the limit: the choice did not spend its budget on the list.
    assert!(
        choice.nodes < limits.nodes.unwrap(),
        "{} nodes within {limits:?} (the proof alone: {})",
        choice.nodes,
        proof.stats.nodes
    );
}

/// `beginner` and `easy` give the line their search expects, not only the action (tester 109:
/// `--engine-info` named one action at these levels): the action first, then legal moves.
#[test]
fn the_noisy_levels_give_the_line_they_expect() {
    let rules = Rules::default();
    let start = Position::start(&Start::uniform(6, 4).unwrap(), &rules);
    for level in [Level::Beginner, Level::Easy] {
        let mut searched = 0;
        for seed in 0..20 {
            let mut engine = Engine::with_seed(level, seed);
            let c = engine.choose(&start, &rules).unwrap();
            if c.nodes == 0 {
                continue; // a random action: no search, no line
            }
            searched += 1;
            assert_eq!(c.pv.first(), Some(&c.mv), "{level:?}: {c:?}");
            assert!(c.pv.len() >= 2, "{level:?} expects only {:?}", c.pv);
            let mut p = start;
            for &mv in &c.pv {
                p.play(&rules, mv)
                    .unwrap_or_else(|e| panic!("{level:?}: {mv} in {:?}: {e}", c.pv));
            }
        }
        assert!(searched >= 10, "{level:?}: {searched} searched choices");
    }
}
