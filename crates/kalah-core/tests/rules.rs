//! Hand-checked tests of every rule and variant. Every expected board is worked out by hand in
//! the comment above it. Bin order for Kalah(6,n): bins 0..5 are South's houses 1..6, bin 6
//! South's store, bins 7..12 North's houses 1..6, bin 13 North's store; bins i and 12-i face
//! each other.

use kalah_core::{
    divide, perft, perft_full, CaptureRule, EndReason, EndRule, LeftoverRule, Move, Phase,
    Position, Rules, Side, Start, Status, Turn,
};

fn pos(s: &str) -> Position {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn rules(s: &str) -> Rules {
    s.parse().unwrap()
}

/// Plays `moves` (house numbers, or 0 for swap) and returns the position.
fn play(r: &Rules, p: &str, moves: &[u8]) -> Position {
    let mut p = pos(p);
    for &h in moves {
        let mv = if h == 0 { Move::Swap } else { Move::Sow(h) };
        p.play(r, mv).unwrap_or_else(|e| panic!("move {mv}: {e}"));
    }
    p
}

const START: &str = "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S";

// ---------------------------------------------------------------------------------------------
// Sowing

#[test]
fn sowing_drops_one_seed_per_pit_counter_clockwise() {
    let r = Rules::default();
    // South house 1 (bin 0), 4 seeds: bins 1, 2, 3, 4 get one each; the last lands in house 5,
    // which held 4: no capture, North to move.
    let mut p = pos(START);
    let out = p.play(&r, Move::Sow(1)).unwrap();
    assert_eq!(p.to_string(), "0,5,5,5,5,4,0,4,4,4,4,4,4,0 N");
    assert_eq!(
        (out.sown, out.last_bin, out.extra_turn, out.captured),
        (4, 4, false, 0)
    );
    assert_eq!(out.ended, None);
    // North house 6 (bin 12), 4 seeds: North's store (13), then South's houses 1, 2, 3 (bins
    // 0, 1, 2). The last seed is in South's row: no capture; South to move.
    let out = p.play(&r, Move::Sow(6)).unwrap();
    assert_eq!(p.to_string(), "1,6,6,5,5,4,0,4,4,4,4,4,0,1 S");
    assert_eq!(out.last_bin, 2);
}

#[test]
fn sowing_skips_the_opponents_store() {
    let r = Rules::default();
    // South house 6 (bin 5), 10 seeds: bin 6 (own store) and bins 7..12 take 7, bin 13 (North's
    // store) is skipped, bins 0, 1, 2 take the last 3. Bin 2 held 1 and now 2: no capture.
    // Before: 0+1+1+0+0+10 + 0 + 6 + 0 = 18 seeds; after: 1+2+2 + 1 + 6*2 = 18.
    let p = play(&r, "0,1,1,0,0,10,0,1,1,1,1,1,1,0 S", &[6]);
    assert_eq!(p.to_string(), "1,2,2,0,0,0,1,2,2,2,2,2,2,0 N");
    // North house 6 (bin 12), 10 seeds: North's store (13), South's houses (bins 0..5, 6
    // seeds), South's store (bin 6) skipped, North's houses 1, 2, 3 (bins 7, 8, 9). Bin 9 held 1.
    let p = play(&r, "1,1,1,1,1,1,0,0,1,1,0,0,10,0 N", &[6]);
    assert_eq!(p.to_string(), "2,2,2,2,2,2,0,1,2,2,0,0,0,1 S");
    assert_eq!(p.store(Side::South), 0);
}

#[test]
fn a_lap_of_2m_plus_1_refills_the_origin_and_captures_there() {
    let r = Rules::default();
    // 13 = 2*6+1 seeds from South house 1 (bin 0): bins 1..12 take 12 (bin 13 skipped) and the
    // 13th lands in the emptied origin: it held 0, now 1, so it captures with the opposite house
    // (bin 12), which held 1+1 = 2: 3 seeds to South's store.
    // Board: bin 0: 0, bins 1..5: 1, store: 1 + 3 = 4, bins 7..11: 2, bin 12: 0, bin 13: 0.
    let mut p = pos("13,0,0,0,0,0,0,1,1,1,1,1,1,0 S");
    let out = p.play(&r, Move::Sow(1)).unwrap();
    assert_eq!(p.to_string(), "0,1,1,1,1,1,4,2,2,2,2,2,0,0 N");
    assert_eq!((out.last_bin, out.captured, out.extra_turn), (0, 3, false));
}

#[test]
fn laps_of_more_than_2m_plus_1() {
    let r = Rules::default();
    // 15 seeds from South house 1: a whole lap (13 seeds, one in every pit but North's store,
    // the origin included), then 2 more in bins 1 and 2. Bin 2 ends with 2: no capture.
    // (North's row is empty: under the row-empty end the game would be over already.)
    let mb = rules("end=mover-blocked");
    let p = play(&mb, "15,0,0,0,0,0,0,0,0,0,0,0,0,0 S", &[1]);
    assert_eq!(p.to_string(), "1,2,2,1,1,1,1,1,1,1,1,1,1,0 N");
    // 26 seeds from South house 6: exactly two laps; the last seed is the origin's second.
    let p = play(&mb, "0,0,0,0,0,26,0,0,0,0,0,0,0,0 S", &[6]);
    assert_eq!(p.to_string(), "2,2,2,2,2,2,2,2,2,2,2,2,2,0 N");
    // 19 seeds from South house 1: a lap, then bins 1..6: the last in the store: extra turn.
    // Before 19 + 6 = 25 seeds; after 1 + 5*2 + 2 + 6*2 = 25.
    let mut p = pos("19,0,0,0,0,0,0,1,1,1,1,1,1,0 S");
    let out = p.play(&r, Move::Sow(1)).unwrap();
    assert_eq!(p.to_string(), "1,2,2,2,2,2,2,2,2,2,2,2,2,0 S");
    assert!(out.extra_turn);
    // North laps skip South's store: North house 1 (bin 7) with 14 seeds on Kalah(6): a lap of
    // 13 (bin 6 skipped), then bin 8. North house 2 ends with 2: no capture.
    let p = play(&r, "1,0,0,0,0,0,0,14,0,0,0,0,0,0 N", &[1]);
    assert_eq!(p.to_string(), "2,1,1,1,1,1,0,1,2,1,1,1,1,1 S");
    // Kalah(1): 5 seeds from South's only house: store, North's house, (North's store
    // skipped), the origin, store, North's house.
    let p = play(&r, "5,0,5,0 S", &[1]);
    assert_eq!(p.to_string(), "1,2,7,0 N");
}

#[test]
fn up_to_255_seeds() {
    // North's rows are empty at first: the mover-blocked end lets South move.
    let r = rules("end=mover-blocked");
    // Kalah(1) with 255 seeds in South's house: 255 = 85 laps of 3 exactly: 85 in each of the
    // origin, South's store and North's house. The last seed is the origin's 85th: no capture.
    let p = play(&r, "255,0,0,0 S", &[1]);
    assert_eq!(p.to_string(), "85,85,85,0 N");
    // Kalah(6): 255 = 19*13 + 8: 19 in every pit but North's store, then bins 6..12 and bin 0.
    let p = play(&r, "0,0,0,0,0,255,0,0,0,0,0,0,0,0 S", &[6]);
    assert_eq!(p.to_string(), "20,19,19,19,19,19,20,20,20,20,20,20,20,0 N");
    assert_eq!(p.total_seeds(), 255);
    assert!("0,0,0,0,0,256,0,0,0,0,0,0,0,0 S"
        .parse::<Position>()
        .is_err());
}

// ---------------------------------------------------------------------------------------------
// Captures

#[test]
fn standard_capture_takes_the_landing_seed_and_the_opposite_house() {
    let r = Rules::default();
    // South house 3 (bin 2), 1 seed, lands in the empty house 4 (bin 3); opposite is bin
    // 12-3 = 9 (North house 3) with 4: 5 seeds to South's store.
    let mut p = pos("1,0,1,0,0,0,0,4,4,4,4,4,4,0 S");
    let out = p.play(&r, Move::Sow(3)).unwrap();
    assert_eq!(p.to_string(), "1,0,0,0,0,0,5,4,4,0,4,4,4,0 N");
    assert_eq!(out.captured, 5);
    assert!(!out.extra_turn);
    // North house 1 (bin 7), 1 seed, lands in the empty North house 2 (bin 8); opposite is bin 4
    // (South house 5) with 4: 5 seeds to North's store.
    let mut p = pos("4,4,4,4,4,4,0,1,0,0,0,0,1,0 N");
    let out = p.play(&r, Move::Sow(1)).unwrap();
    assert_eq!(p.to_string(), "4,4,4,4,0,4,0,0,0,0,0,0,1,5 S");
    assert_eq!(out.captured, 5);
}

#[test]
fn standard_capture_needs_seeds_opposite_empty_capture_does_not() {
    // As above but North house 3 (bin 9) is empty.
    let start = "1,0,1,0,0,0,0,4,4,0,4,4,4,0 S";
    // Standard: no capture, the seed stays in South house 4.
    let mut p = pos(start);
    let out = p.play(&Rules::default(), Move::Sow(3)).unwrap();
    assert_eq!(p.to_string(), "1,0,0,1,0,0,0,4,4,0,4,4,4,0 N");
    assert_eq!(out.captured, 0);
    // Empty capture: the lone seed goes to the store.
    let mut p = pos(start);
    let out = p.play(&rules("capture=empty"), Move::Sow(3)).unwrap();
    assert_eq!(p.to_string(), "1,0,0,0,0,0,1,4,4,0,4,4,4,0 N");
    assert_eq!(out.captured, 1);
}

#[test]
fn no_capture_in_a_house_that_held_seeds_or_in_the_opponents_row() {
    let r = rules("capture=empty");
    // South house 3, 1 seed, into house 4 which held 2: no capture even under empty capture.
    let p = play(&r, "1,0,1,2,0,0,0,4,4,4,4,4,4,0 S", &[3]);
    assert_eq!(p.to_string(), "1,0,0,3,0,0,0,4,4,4,4,4,4,0 N");
    // South house 6, 2 seeds: store, then North house 1 (bin 7), empty: not South's house.
    let p = play(&r, "1,0,0,0,0,2,0,0,4,4,4,4,4,0 S", &[6]);
    assert_eq!(p.to_string(), "1,0,0,0,0,0,1,1,4,4,4,4,4,0 N");
}

// ---------------------------------------------------------------------------------------------
// Extra turns

#[test]
fn last_seed_in_own_store_gives_an_extra_turn() {
    let r = Rules::default();
    // South house 3, 4 seeds: bins 3, 4, 5, 6: the last in South's store.
    let mut p = pos(START);
    let out = p.play(&r, Move::Sow(3)).unwrap();
    assert_eq!(p.to_string(), "4,4,0,5,5,5,1,4,4,4,4,4,4,0 S");
    assert!(out.extra_turn);
    // Then house 6, 5 seeds: bins 6, 7, 8, 9, 10.
    p.play(&r, Move::Sow(6)).unwrap();
    assert_eq!(p.to_string(), "4,4,0,5,5,0,2,5,5,5,5,4,4,0 N");
    // The same as one turn.
    let mut q = pos(START);
    let outs = "3-6".parse::<Turn>().unwrap().play(&mut q, &r).unwrap();
    assert_eq!(q, p);
    assert_eq!(outs.len(), 2);
    // North house 5 (bin 11), 2 seeds: bins 12 and 13, North's store: an extra turn.
    let mut p = pos("1,1,1,1,1,1,0,0,0,0,0,2,0,0 N");
    let out = p.play(&r, Move::Sow(5)).unwrap();
    assert_eq!(p.to_string(), "1,1,1,1,1,1,0,0,0,0,0,0,1,1 N");
    assert!(out.extra_turn);
}

#[test]
fn a_capture_never_gives_an_extra_turn() {
    // Every legal sowing of every position reached by perft(6) from a few starts: capture
    // and extra turn never together (they need the last seed in a house and in the store).
    for (r, start) in [
        (Rules::default(), START),
        (rules("capture=empty"), START),
        (rules("capture=empty"), "13,0,0,0,0,0,0,1,1,1,1,1,1,0 S"),
    ] {
        let mut stack = vec![(pos(start), 0)];
        let mut captures = 0;
        while let Some((p, d)) = stack.pop() {
            for mv in p.legal_moves(&r) {
                let mut c = p;
                let out = c.play(&r, mv).unwrap();
                assert!(!(out.captured > 0 && out.extra_turn), "{p} {mv}");
                captures += usize::from(out.captured > 0);
                if d < 5 {
                    stack.push((c, d + 1));
                }
            }
        }
        assert!(captures > 100, "the test must see captures");
    }
}

// ---------------------------------------------------------------------------------------------
// The end of the game and the leftovers

#[test]
fn row_empty_ends_at_once_mover_blocked_waits_for_the_mover() {
    // South house 6 (bin 5), 2 seeds: South's store and North house 1. South's row is empty,
    // North to move. Seeds: 2 + 20 + 18 + 10 = 50.
    let start = "0,0,0,0,0,2,20,3,3,3,3,3,3,10 S";
    // Row-empty, leftovers to the owner: North's 4+3*5 = 19 go to North: 21-29.
    let p = play(&Rules::default(), start, &[6]);
    assert_eq!(p.to_string(), "0,0,0,0,0,0,21,0,0,0,0,0,0,29 N");
    assert_eq!(p.status(&Rules::default()), Status::Over([21, 29]));
    // The text names the side that would have moved, and reads back as the same finished game
    // (its value, North's view, is +8; with South assumed it would be -8).
    let back = pos("0,0,0,0,0,0,21,0,0,0,0,0,0,29 N");
    assert_eq!(back, p);
    assert!(back.is_over());
    assert_eq!(
        (back.side(), back.store_diff(back.side())),
        (Side::North, 8)
    );
    assert_eq!(pos("0,0,0,0,0,0,21,0,0,0,0,0,0,29").side(), Side::South);
    let mut q = pos(start);
    let out = q.play(&Rules::default(), Move::Sow(6)).unwrap();
    assert_eq!(out.ended, Some(EndReason::RowEmpty(Side::South)));
    // Emptier: South emptied his row and takes North's 19: 40-10. Nobody: 21-10.
    let p = play(&rules("leftovers=emptier"), start, &[6]);
    assert_eq!(p.to_string(), "0,0,0,0,0,0,40,0,0,0,0,0,0,10 N");
    let p = play(&rules("leftovers=nobody"), start, &[6]);
    assert_eq!(p.to_string(), "0,0,0,0,0,0,21,0,0,0,0,0,0,10 N");
    assert_eq!(p.total_seeds(), 31);
    // Mover-blocked: North has seeds, the game goes on.
    let r = rules("end=mover-blocked");
    let p = play(&r, start, &[6]);
    assert_eq!(p.to_string(), "0,0,0,0,0,0,21,4,3,3,3,3,3,10 N");
    // North house 1 (bin 7), 4 seeds: bins 8..11; South to move with no seeds: the end. Owner:
    // North's 4+4+4+4+3 = 19 to North: 21-29.
    let mut q = p;
    let out = q.play(&r, Move::Sow(1)).unwrap();
    assert_eq!(out.ended, Some(EndReason::MoverBlocked(Side::South)));
    assert_eq!(q.to_string(), "0,0,0,0,0,0,21,0,0,0,0,0,0,29 S");
    // Emptier: South, blocked with an empty row, takes the 19: 40-10. Nobody: 21-10.
    let q = play(
        &rules("end=mover-blocked leftovers=emptier"),
        start,
        &[6, 1],
    );
    assert_eq!(q.to_string(), "0,0,0,0,0,0,40,0,0,0,0,0,0,10 S");
    let q = play(&rules("end=mover-blocked leftovers=nobody"), start, &[6, 1]);
    assert_eq!(q.to_string(), "0,0,0,0,0,0,21,0,0,0,0,0,0,10 S");
}

#[test]
fn mover_blocked_ends_when_the_mover_empties_his_row_with_an_extra_turn() {
    // South house 6, 1 seed, into the store: an extra turn, but South has no seeds left.
    // Under both end rules the game ends; owner: North's 6 to North: 21-28.
    for end in ["row-empty", "mover-blocked"] {
        let r = rules(&format!("end={end}"));
        let mut p = pos("0,0,0,0,0,1,20,1,1,1,1,1,1,22 S");
        let out = p.play(&r, Move::Sow(6)).unwrap();
        assert!(out.extra_turn);
        assert_eq!(p.to_string(), "0,0,0,0,0,0,21,0,0,0,0,0,0,28 S");
        assert!(out.ended.is_some());
    }
}

#[test]
fn leftovers_when_north_empties_his_row() {
    // North house 6 (bin 12), 2 seeds: North's store and South house 1. North's row is empty.
    // South's row: 2+1+1+1+1+1 = 7. Seeds: 6 + 10 + 2 + 20 = 38.
    let start = "1,1,1,1,1,1,10,0,0,0,0,0,2,20 N";
    let p = play(&Rules::default(), start, &[6]);
    assert_eq!(p.status(&Rules::default()), Status::Over([17, 21]));
    let p = play(&rules("leftovers=emptier"), start, &[6]);
    assert_eq!(p.to_string(), "0,0,0,0,0,0,10,0,0,0,0,0,0,28 S");
    let p = play(&rules("leftovers=nobody"), start, &[6]);
    assert_eq!(p.to_string(), "0,0,0,0,0,0,10,0,0,0,0,0,0,21 S");
    // Mover-blocked: South to move with seeds: the game goes on.
    let p = play(&rules("end=mover-blocked"), start, &[6]);
    assert_eq!(p.to_string(), "2,1,1,1,1,1,10,0,0,0,0,0,0,21 S");
}

#[test]
fn majority_end_with_each_leftover_rule() {
    // 44 seeds; South's store holds 22, not more than half. South house 6 (bin 5), 2 seeds:
    // store (23) and North house 1. 2*23 = 46 > 44: the game stops, no row is empty.
    let start = "1,1,1,1,0,2,22,1,1,1,1,1,1,10 S";
    // Owner: South's 4 to South (27), North's 2+5 = 7 to North (17).
    let mut p = pos(start);
    let r = rules("majority-end=on");
    let out = p.play(&r, Move::Sow(6)).unwrap();
    assert_eq!(out.ended, Some(EndReason::Majority(Side::South)));
    assert_eq!(p.to_string(), "0,0,0,0,0,0,27,0,0,0,0,0,0,17 N");
    // Emptier: nobody emptied a row, each keeps his own: the same.
    let p = play(&rules("majority-end=on leftovers=emptier"), start, &[6]);
    assert_eq!(p.to_string(), "0,0,0,0,0,0,27,0,0,0,0,0,0,17 N");
    // Nobody: 23-10.
    let p = play(&rules("majority-end=on leftovers=nobody"), start, &[6]);
    assert_eq!(p.to_string(), "0,0,0,0,0,0,23,0,0,0,0,0,0,10 N");
    // Without the majority end the game goes on.
    let p = play(&Rules::default(), start, &[6]);
    assert_eq!(p.to_string(), "1,1,1,1,0,0,23,2,1,1,1,1,1,10 N");
    // Exactly half is not a majority: 22 of 44 at the start.
    assert_eq!(pos(start).end_reason(&r), None);
}

#[test]
fn majority_end_with_an_empty_row_and_emptier() {
    // 20 seeds; South's store 10 (exactly half: no majority yet). South house 6 (bin 5), 1
    // seed, into the store: 11 of 20 is a majority, and South's row is now empty: the emptier
    // (South) takes North's 1+1+1+1 = 4 under leftovers=emptier: 15-5.
    let start = "0,0,0,0,0,1,10,1,1,1,1,0,0,5 S";
    let r = rules("majority-end=on leftovers=emptier");
    let mut p = pos(start);
    let out = p.play(&r, Move::Sow(6)).unwrap();
    assert_eq!(out.ended, Some(EndReason::Majority(Side::South)));
    assert_eq!(p.to_string(), "0,0,0,0,0,0,15,0,0,0,0,0,0,5 S");
}

#[test]
fn parsed_positions_that_are_over_settle() {
    let r = Rules::default();
    let mut p = pos("0,0,0,0,0,0,20,1,1,1,1,1,1,22 S");
    assert_eq!(p.legal_moves(&r).len(), 0);
    assert_eq!(p.status(&r), Status::Over([20, 28]));
    assert_eq!(perft(&p, &r, 3), 0);
    assert_eq!(p.settle(&r), Some(EndReason::RowEmpty(Side::South)));
    assert_eq!(p.to_string(), "0,0,0,0,0,0,20,0,0,0,0,0,0,28 S");
    assert_eq!(p.to_move(), None);
    assert_eq!(p.settle(&r), None);
    // Under mover-blocked, North's empty row does not end a game with South to move.
    let q = pos("1,0,0,0,0,0,20,0,0,0,0,0,0,22 S");
    assert_eq!(
        q.status(&rules("end=mover-blocked")),
        Status::ToMove(Side::South)
    );
    assert_eq!(q.status(&r), Status::Over([21, 22]));
}

// ---------------------------------------------------------------------------------------------
// Opening rules

#[test]
fn pie_rule_swap_only_as_norths_first_action_after_souths_whole_turn() {
    let r = rules("pie=on");
    let start = Position::start(&Start::default(), &r);
    assert_eq!(start.phase(), Phase::Opening);
    assert_eq!(start.to_string(), "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S opening");
    assert!(!start.legal_moves(&r).contains(&Move::Swap));
    // South 3: an extra turn; South is still to move: no swap yet.
    let mut p = start;
    p.play(&r, Move::Sow(3)).unwrap();
    assert_eq!(p.to_string(), "4,4,0,5,5,5,1,4,4,4,4,4,4,0 S first-turn");
    assert_eq!(
        p.play(&r, Move::Swap),
        Err(kalah_core::MoveError::SwapNotAllowed)
    );
    // South 6 ends the turn: North's first action may be swap.
    p.play(&r, Move::Sow(6)).unwrap();
    assert_eq!(p.to_string(), "4,4,0,5,5,0,2,5,5,5,5,4,4,0 N pie");
    assert_eq!(p.legal_moves(&r).last(), Some(&Move::Swap));
    assert_eq!(p.legal_moves(&r).len(), 7);
    // Swap: the board is unchanged and North (the first player, who now owns North's row) is
    // to move again; no second swap.
    let mut s = p;
    let out = s.play(&r, Move::Swap).unwrap();
    assert!(out.swapped && !out.extra_turn && out.sown == 0);
    assert_eq!(s.to_string(), "4,4,0,5,5,0,2,5,5,5,5,4,4,0 N");
    assert_eq!(s.pits(), p.pits());
    assert_eq!(
        s.play(&r, Move::Swap),
        Err(kalah_core::MoveError::SwapNotAllowed)
    );
    // A sowing as North's first action (here house 2, bin 8, 5 seeds: 9..13: extra turn)
    // gives up the swap, even in the same turn.
    let mut n = p;
    assert!(n.play(&r, Move::Sow(2)).unwrap().extra_turn);
    assert_eq!(n.to_string(), "4,4,0,5,5,0,2,5,0,6,6,5,5,1 N");
    assert_eq!(
        n.play(&r, Move::Swap),
        Err(kalah_core::MoveError::SwapNotAllowed)
    );
    // Without the pie rule there is no swap at that point.
    let q = play(&Rules::default(), START, &[3, 6]);
    assert_eq!(q.to_string(), "4,4,0,5,5,0,2,5,5,5,5,4,4,0 N");
    assert_eq!(
        q.check(&Rules::default(), Move::Swap),
        Err(kalah_core::MoveError::SwapNotAllowed)
    );
    // Perft counts the swap as a ply: 6 sowings + swap at North's first action.
    assert_eq!(perft(&p, &r, 1), 7);
    assert_eq!(divide(&p, &r, 1).last(), Some(&(Move::Swap, 1)));
}

#[test]
fn manchester_rule_no_extra_turn_on_souths_very_first_sowing_only() {
    let r = rules("first-move-extra-turn=off");
    let start = Position::start(&Start::default(), &r);
    assert_eq!(start.phase(), Phase::Opening);
    // South 3 ends in the store but earns nothing: North to move.
    let mut p = start;
    let out = p.play(&r, Move::Sow(3)).unwrap();
    assert!(!out.extra_turn);
    assert_eq!(p.to_string(), "4,4,0,5,5,5,1,4,4,4,4,4,4,0 N");
    // North 3 (bin 9), 4 seeds: 10, 11, 12, 13: North's store: an extra turn as usual.
    assert!(p.play(&r, Move::Sow(3)).unwrap().extra_turn);
    // After North 3, North's houses are 4,4,0,5,5,5 and its store 1. North 1 (bin 7), 4
    // seeds: bins 8..11 (bin 11 held 5: no capture).
    p.play(&r, Move::Sow(1)).unwrap();
    assert_eq!(p.to_string(), "4,4,0,5,5,5,1,0,5,1,6,6,5,1 S");
    // Later South sowings into the store earn extra turns: South house 6 with 1 seed.
    let mut q = pos("1,1,1,1,1,1,3,1,1,1,1,1,1,3 S");
    assert!(q.play(&r, Move::Sow(6)).unwrap().extra_turn);
    // With the pie rule as well, North may swap after South's first sowing.
    let r2 = rules("pie=on first-move-extra-turn=off");
    let p = play(&r2, "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S opening", &[3]);
    assert_eq!(p.to_string(), "4,4,0,5,5,5,1,4,4,4,4,4,4,0 N pie");
    assert!(p.can_swap(&r2));
}

// ---------------------------------------------------------------------------------------------
// Boards and layouts

#[test]
fn custom_layouts_mirrored_or_not() {
    let r = Rules::default();
    // FairKalah 4,4,5,4,3,4: not mirrored, North house h gets layout[h-1].
    let s = Start::layout(&[4, 4, 5, 4, 3, 4], false).unwrap();
    assert_eq!(
        Position::start(&s, &r).to_string(),
        "4,4,5,4,3,4,0,4,4,5,4,3,4,0 S"
    );
    // Mirrored: North house h gets layout[6-h]: houses 1..6 = 4,3,4,5,4,4, so that South
    // house 3 (5 seeds) faces North house 4 (5 seeds).
    let s = Start::layout(&[4, 4, 5, 4, 3, 4], true).unwrap();
    let p = Position::start(&s, &r);
    assert_eq!(p.to_string(), "4,4,5,4,3,4,0,4,3,4,5,4,4,0 S");
    assert_eq!(p.house(Side::South, 3), p.house(Side::North, 4));
    assert_eq!(
        (s.houses(), s.mirrored(), s.south_layout()),
        (6, true, &[4, 4, 5, 4, 3, 4][..])
    );
    assert_eq!(
        Start::default().pits(),
        Start::uniform(6, 4).unwrap().pits()
    );
}

#[test]
fn one_house_and_twelve_house_boards() {
    let r = Rules::default();
    // Kalah(1,3): South's 3 seeds: store, North's house, (North's store skipped), the origin:
    // 1 seed in the emptied origin: capture with North's house (3+1 = 4): 5 to South's store.
    // Both rows are empty: the game is over, 6-0.
    let mut p = Position::start(&Start::uniform(1, 3).unwrap(), &r);
    assert_eq!(p.to_string(), "3,0,3,0 S");
    let out = p.play(&r, Move::Sow(1)).unwrap();
    assert_eq!(out.captured, 5);
    assert_eq!(p.to_string(), "0,6,0,0 N");
    assert_eq!(p.status(&r), Status::Over([6, 0]));
    // Kalah(12,10), 240 seeds: South house 12 (bin 11), 10 seeds: store (bin 12), North houses
    // 1..9 (bins 13..21).
    let mut p = Position::start(&Start::uniform(12, 10).unwrap(), &r);
    p.play(&r, Move::Sow(12)).unwrap();
    assert_eq!(
        p.to_string(),
        "10,10,10,10,10,10,10,10,10,10,10,0,1,11,11,11,11,11,11,11,11,11,10,10,10,0 N"
    );
    assert_eq!(
        perft(
            &Position::start(&Start::uniform(12, 10).unwrap(), &r),
            &r,
            1
        ),
        12
    );
    // North house 12 (bin 24) faces South house 1 (bin 0).
    assert_eq!(p.bin_of(Side::North, 12), 24);
    assert_eq!(p.store_bin(Side::North), 25);
    // No house 0 or 13: a panic, as documented, not a bin of the other row or a store.
    for bad in [0, 13] {
        let r = std::panic::catch_unwind(|| p.bin_of(Side::South, bad));
        assert!(r.is_err(), "house {bad}");
    }
}

#[test]
fn perft_by_hand() {
    let r = Rules::default();
    let p = pos(START);
    // Six sowings from the start.
    assert_eq!(perft(&p, &r, 1), 6);
    // South 3 earns an extra turn (5 more South sowings, none reaching the store); the other
    // five give North six sowings each: 5*6 + 5 = 35.
    assert_eq!(perft(&p, &r, 2), 35);
    assert_eq!(perft_full(&p, &r, 2), 35);
    let d = divide(&p, &r, 2);
    assert_eq!(d[2], (Move::Sow(3), 5));
    assert_eq!(d.iter().map(|x| x.1).sum::<u64>(), 35);
    // Whole turns from the start: 5 single sowings and 3-1, 3-2, 3-4, 3-5, 3-6.
    let turns: Vec<String> = Turn::all(&p, &r).iter().map(|t| t.0.to_string()).collect();
    assert_eq!(
        turns,
        ["1", "2", "3-1", "3-2", "3-4", "3-5", "3-6", "4", "5", "6"]
    );
    assert_eq!(perft(&p, &r, 0), 1);
    assert!(divide(&p, &r, 0).is_empty());
}

#[test]
fn rules_notation() {
    let r = Rules::default();
    assert_eq!(
        r.to_string(),
        "capture=standard end=row-empty leftovers=owner majority-end=off pie=off first-move-extra-turn=on"
    );
    let all = rules("capture=empty, end=mover-blocked leftovers=nobody majority-end=on pie=yes first-move-extra-turn=false");
    assert_eq!(
        all,
        Rules {
            capture: CaptureRule::Empty,
            end: EndRule::MoverBlocked,
            leftovers: LeftoverRule::Nobody,
            majority_end: true,
            pie: true,
            first_move_extra_turn: false,
        }
    );
    assert_eq!("".parse::<Rules>().unwrap(), Rules::STANDARD);
    assert!(all.has_opening_rules() && all.outcome_depends_on_stores());
    assert!(!r.has_opening_rules() && !r.outcome_depends_on_stores());
}

#[test]
fn position_accessors() {
    let p = pos("1,2,3,4,5,6,7,8,9,10,11,12,13,14 N");
    assert_eq!(p.houses(), 6);
    assert_eq!(p.row(Side::South), &[1, 2, 3, 4, 5, 6]);
    assert_eq!(p.row(Side::North), &[8, 9, 10, 11, 12, 13]);
    assert_eq!((p.store(Side::South), p.store(Side::North)), (7, 14));
    assert_eq!(
        (p.row_seeds(Side::South), p.row_seeds(Side::North)),
        (21, 63)
    );
    assert_eq!(p.seeds_in_houses(), 84);
    assert_eq!(p.total_seeds(), 105);
    assert_eq!(p.house(Side::North, 1), 8);
    assert_eq!(p.store_diff(Side::North), 7);
    assert_eq!(p.legal_houses(), 0b11_1111);
    assert_eq!(p.bins().len(), 26);
    // Undo is a copy of 32 bytes.
    assert_eq!(std::mem::size_of::<Position>(), 32);
    // Flipped: rows and stores exchanged, South to move.
    let f = p.flipped();
    assert_eq!(f.to_string(), "8,9,10,11,12,13,14,1,2,3,4,5,6,7 S");
    assert_eq!(f.flipped(), p);
    // legal_houses is a bit per house of the side to move.
    assert_eq!(
        pos("0,3,0,1,4,4,0,0,0,0,0,0,1,0 S").legal_houses(),
        0b11_1010
    );
    assert_eq!(
        pos("0,3,0,1,4,4,0,5,0,0,0,0,1,0 N").legal_houses(),
        0b10_0001
    );
    let twelve = pos("1,0,0,0,0,0,0,0,0,0,0,2,0,0,0,0,0,0,0,0,0,0,0,0,3,0 N");
    assert_eq!(twelve.legal_houses(), 1 << 11);
}

#[test]
fn phase_tags_belong_to_their_opening_rules() {
    let standard = rules("");
    let pie = rules("pie=on");
    let manchester = rules("first-move-extra-turn=off");
    for r in [&standard, &pie, &manchester] {
        assert!(r.allows_phase(Phase::Normal));
    }
    assert!(!standard.allows_phase(Phase::Opening));
    assert!(!standard.allows_phase(Phase::FirstTurn));
    assert!(!standard.allows_phase(Phase::PieChoice));
    assert!(pie.allows_phase(Phase::Opening) && pie.allows_phase(Phase::PieChoice));
    assert!(pie.allows_phase(Phase::FirstTurn));
    assert!(manchester.allows_phase(Phase::Opening));
    assert!(!manchester.allows_phase(Phase::PieChoice));
    // Under the Manchester rule no first turn goes on after the first sowing (tester 45: the
    // `first-turn` tag was allowed there).
    assert!(!manchester.allows_phase(Phase::FirstTurn));
    assert_eq!(
        manchester.phase_needs(Phase::FirstTurn),
        Some(kalah_core::PhaseNeeds::PieWithFirstMoveExtraTurn)
    );
    // The tags allowed are exactly those that games under the rules reach: every opening of
    // Kalah(3,3) and Kalah(4,4) (house 1 of Kalah(3,3) and house 1 of Kalah(4,4) end in the
    // store) to three plies.
    let both = rules("pie=on first-move-extra-turn=off");
    for r in [&standard, &pie, &manchester, &both] {
        let mut reached = std::collections::HashSet::new();
        for (m, n) in [(3, 3), (4, 4)] {
            let mut todo = vec![(Position::start(&Start::uniform(m, n).unwrap(), r), 0)];
            while let Some((p, depth)) = todo.pop() {
                reached.insert(p.phase());
                if depth == 3 {
                    continue;
                }
                for mv in p.legal_moves(r) {
                    let mut q = p;
                    q.play(r, mv).unwrap();
                    todo.push((q, depth + 1));
                }
            }
        }
        for phase in [
            Phase::Normal,
            Phase::Opening,
            Phase::FirstTurn,
            Phase::PieChoice,
        ] {
            assert_eq!(
                r.allows_phase(phase),
                reached.contains(&phase),
                "{phase:?} under {r}"
            );
        }
    }
}

/// `Position::phase_tag_problem`, which every front end uses: the missing rules first, then a
/// game over under the rules; nothing for an untagged position or a tag that fits.
#[test]
fn a_phase_tag_problem_names_the_missing_rules_before_the_end() {
    use kalah_core::{EndReason, PhaseNeeds, PhaseTagProblem, Side};
    let going_on = pos("4,4,4,4,4,4,0,4,4,4,4,4,4,0 N pie");
    // South's row is empty: over under the standard end, not under mover-blocked.
    let over = pos("0,0,0,0,0,0,1,0,0,0,0,0,1,0 N pie");
    let standard = rules("");
    let pie = rules("pie=on");
    assert_eq!(going_on.phase_tag_problem(&pie), None);
    assert_eq!(
        pos("4,4,4,4,4,4,0,4,4,4,4,4,4,0 S").phase_tag_problem(&standard),
        None
    );
    assert_eq!(
        over.phase_tag_problem(&rules("pie=on end=mover-blocked")),
        None
    );
    let needs = PhaseTagProblem::NeedsRules {
        tag: "pie",
        needs: PhaseNeeds::Pie,
    };
    assert_eq!(going_on.phase_tag_problem(&standard), Some(needs));
    // Both wrong: the rules are named first, as the fix that makes the tag mean anything.
    assert_eq!(over.phase_tag_problem(&standard), Some(needs));
    let ended = over.phase_tag_problem(&pie).unwrap();
    assert_eq!(
        ended,
        PhaseTagProblem::GameOver {
            tag: "pie",
            why: EndReason::RowEmpty(Side::South)
        }
    );
    assert_eq!(
        needs.to_string(),
        "phase tag 'pie' belongs to the opening rules: add pie=on, or leave the tag out"
    );
    assert_eq!(
        ended.to_string(),
        "phase tag 'pie' needs a game that is not over (South's row is empty under these \
         rules): leave the tag out"
    );
}

/// `PhaseTagProblem::of_refused_text`: a text refused for a tag that does not fit its side to
/// move names the missing rules when the rules lack them, and nothing when they have them.
#[test]
fn a_refused_phase_tag_names_the_missing_rules() {
    use kalah_core::{ParsePositionError, PhaseNeeds, PhaseTagProblem};
    let err = "3,3,3,3,0,3,3,3,3,0 S pie".parse::<Position>().unwrap_err();
    assert_eq!(
        PhaseTagProblem::of_refused_text(&err, &rules("")),
        Some(PhaseTagProblem::NeedsRules {
            tag: "pie",
            needs: PhaseNeeds::Pie
        })
    );
    assert_eq!(
        PhaseTagProblem::of_refused_text(&err, &rules("pie=on")),
        None
    );
    let other = "3,3,3,3,0,3,3,3,3 S".parse::<Position>().unwrap_err();
    assert!(!matches!(other, ParsePositionError::Empty));
    assert_eq!(PhaseTagProblem::of_refused_text(&other, &rules("")), None);
}

#[test]
fn phase_tags_read_back() {
    for p in [Phase::Opening, Phase::FirstTurn, Phase::PieChoice] {
        assert_eq!(Phase::from_tag(p.tag().unwrap()), Some(p));
    }
    for other in ["", "normal", "Pie", "first_turn", "S"] {
        assert_eq!(Phase::from_tag(other), None, "{other}");
    }
}
