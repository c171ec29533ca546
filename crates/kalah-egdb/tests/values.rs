//! Database values against a plain exact negamax on `kalah-core` positions, under every rule
//! set that can be databased.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

use kalah_core::{CaptureRule, EndRule, LeftoverRule, Position, Rules, Setup, Side};
use kalah_egdb::{BuildPlan, Egdb};
use rand::{Rng, SeedableRng};

/// Every databased rule set: 2 capture × 2 end × 3 leftover rules.
fn all_rules() -> Vec<Rules> {
    let mut v = Vec::new();
    for capture in [CaptureRule::Standard, CaptureRule::Empty] {
        for end in [EndRule::RowEmpty, EndRule::MoverBlocked] {
            for leftovers in [
                LeftoverRule::Owner,
                LeftoverRule::Emptier,
                LeftoverRule::Nobody,
            ] {
                v.push(Rules {
                    capture,
                    end,
                    leftovers,
                    ..Rules::default()
                });
            }
        }
    }
    v
}

/// Plain negamax without pruning (memoised on the whole position): the final store difference,
/// side to move minus opponent.
fn negamax(pos: &Position, rules: &Rules, memo: &mut HashMap<Position, i32>) -> i32 {
    if pos.is_over() {
        return pos.store_diff(pos.side());
    }
    if let Some(&v) = memo.get(pos) {
        return v;
    }
    let me = pos.side();
    let mut best = i32::MIN;
    for mv in pos.legal_moves(rules) {
        let mut c = *pos;
        c.play_unchecked(rules, mv);
        let v = negamax(&c, rules, memo);
        best = best.max(if c.side() == me { v } else { -v });
    }
    memo.insert(*pos, best);
    best
}

/// A position with the given rows (mover's first) and stores, `side` to move.
fn position(m: usize, mover: &[u8], opp: &[u8], stores: [u8; 2], side: Side) -> Position {
    let (south, north) = match side {
        Side::South => (mover, opp),
        Side::North => (opp, mover),
    };
    let mut pits = south.to_vec();
    pits.push(stores[0]);
    pits.extend_from_slice(north);
    pits.push(stores[1]);
    assert_eq!(pits.len(), 2 * m + 2);
    Position::from_setup(&Setup {
        pits,
        to_move: Some(side),
        ..Setup::default()
    })
    .unwrap()
}

fn build(dir: &std::path::Path, m: usize, rules: &Rules, k: u32) -> Egdb {
    let plan = BuildPlan {
        root: dir.to_path_buf(),
        houses: m,
        rules: *rules,
        max_seeds: k,
        threads: Some(2),
    };
    plan.run(&AtomicBool::new(false), &|_| {}).unwrap();
    Egdb::open(dir, m, rules).unwrap().unwrap()
}

/// Checks `pos` (settled) against negamax: the probe plus the store difference is the value.
fn check(db: &Egdb, pos: &Position, rules: &Rules, memo: &mut HashMap<Position, i32>) -> bool {
    let mut p = *pos;
    p.settle(rules);
    let probed = db.probe(&p, rules);
    if p.is_over() {
        assert_eq!(probed, None, "{p}: game over, must not be probed");
        return false;
    }
    let want = negamax(&p, rules, memo);
    let got = probed.expect("covered position") + p.store_diff(p.side());
    assert_eq!(got, want, "{p} under {rules}");
    true
}

/// Small boards, every arrangement of every layer, both sides to move.
#[test]
fn every_arrangement_of_small_boards_matches_negamax() {
    for rules in all_rules() {
        for (m, kmax) in [(1usize, 7u32), (2, 7), (3, 6)] {
            let dir = tempfile::tempdir().unwrap();
            let db = build(dir.path(), m, &rules, kmax);
            assert_eq!(db.max_seeds(), kmax);
            let mut memo = HashMap::new();
            let mut checked = 0;
            for k in 0..=kmax {
                let mut x = vec![0u8; 2 * m];
                for r in 0..db.layer_size(k) {
                    db_unrank(m, k, r, &mut x);
                    for side in [Side::South, Side::North] {
                        let pos = position(m, &x[..m], &x[m..], [3, 1], side);
                        if check(&db, &pos, &rules, &mut memo) {
                            checked += 1;
                        }
                    }
                }
            }
            assert!(
                checked > 20 * m * m,
                "m={m}: only {checked} positions checked"
            );
        }
    }
}

fn db_unrank(m: usize, k: u32, r: u64, x: &mut [u8]) {
    let ix = kalah_egdb::Indexer::new(m, k).unwrap();
    ix.unrank(k, r, x);
}

/// Kalah(6,·): random positions with up to 10 seeds in the houses and random stores.
#[test]
fn random_kalah6_positions_match_negamax() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(4);
    let m = 6;
    let kmax = 9;
    for rules in all_rules() {
        let dir = tempfile::tempdir().unwrap();
        let db = build(dir.path(), m, &rules, kmax);
        let mut memo = HashMap::new();
        let mut checked = 0;
        while checked < 150 {
            let k = rng.gen_range(1..=kmax);
            let mut pits = vec![0u8; 2 * m];
            for _ in 0..k {
                pits[rng.gen_range(0..2 * m)] += 1;
            }
            let side = if rng.gen() { Side::South } else { Side::North };
            let stores = [rng.gen_range(0..20), rng.gen_range(0..20)];
            let pos = position(m, &pits[..m], &pits[m..], stores, side);
            if check(&db, &pos, &rules, &mut memo) {
                checked += 1;
            }
        }
    }
}

/// Opening phases, other rules, other boards, too many seeds: not covered.
#[test]
fn probe_refuses_what_it_does_not_cover() {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules::default();
    let db = build(dir.path(), 2, &rules, 4);
    let p: Position = "1,1,0,1,0,0 S".parse().unwrap();
    assert!(db.probe(&p, &rules).is_some());
    let empty = Rules {
        capture: CaptureRule::Empty,
        ..rules
    };
    assert_eq!(db.probe(&p, &empty), None);
    let majority = Rules {
        majority_end: true,
        ..rules
    };
    assert_eq!(db.probe(&p, &majority), None);
    // Pie rule: Normal-phase positions are served, opening phases are not.
    let pie = Rules { pie: true, ..rules };
    assert!(db.probe(&p, &pie).is_some());
    let opening: Position = "1,1,0,1,0,0 S opening".parse().unwrap();
    assert_eq!(db.probe(&opening, &pie), None);
    let big: Position = "3,1,0,1,0,0 S".parse().unwrap();
    assert_eq!(db.probe(&big, &rules), None);
    let other: Position = "1,1,1,0,1,0,0,0 S".parse().unwrap();
    assert_eq!(db.probe(&other, &rules), None);
    // Prefetching is harmless for covered and uncovered positions alike.
    for (q, r) in [
        (&p, &rules),
        (&p, &empty),
        (&opening, &pie),
        (&big, &rules),
        (&other, &rules),
    ] {
        db.prefetch(q, r);
    }
    // Majority end: refused by the build, no databases opened.
    let plan = BuildPlan {
        root: dir.path().to_path_buf(),
        houses: 2,
        rules: majority,
        max_seeds: 3,
        threads: Some(1),
    };
    let err = plan.run(&AtomicBool::new(false), &|_| {}).unwrap_err();
    assert!(err.to_string().contains("majority end"), "{err}");
    assert!(Egdb::open(dir.path(), 2, &majority).unwrap().is_none());
}
