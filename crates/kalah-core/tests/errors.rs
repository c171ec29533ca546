//! Every typed error: the variant, its fields (columns, lines, indices) and that its message
//! says what is wrong. Bad input never panics.

use kalah_core::{
    GameRecord, Move, MoveError, ParseLayoutError, ParsePositionError, Phase, Position,
    RecordError, Rules, RulesError, Setup, SetupError, Side, Start, Turn, TurnError,
};

fn parse_err(s: &str) -> ParsePositionError {
    s.parse::<Position>().expect_err(s)
}

/// Layout text (`--layout`, the web API's string `layout`): items read one by one, the first bad
/// one named with its place; the house count and seed total are `Start::layout`'s.
#[test]
fn layout_text() {
    assert_eq!(
        Start::parse_counts("4,4,5,4,3,4"),
        Ok(vec![4, 4, 5, 4, 3, 4])
    );
    assert_eq!(Start::parse_counts(" 0 , 255"), Ok(vec![0, 255]));
    let bad = |s: &str| Start::parse_counts(s).expect_err(s);
    assert_eq!(
        bad("4,256,4"),
        ParseLayoutError::BadCount {
            item: 2,
            text: "256".into()
        }
    );
    assert_eq!(
        bad("3,x,1").to_string(),
        "item 2: 'x' is not a seed count (0 to 255)"
    );
    assert_eq!(
        bad("-1,4").to_string(),
        "item 1: '-1' is not a seed count (0 to 255)"
    );
    // Counts separated by spaces are told to take commas (tester 106).
    assert_eq!(
        bad("1 2 3").to_string(),
        "item 1: '1 2 3' is not a seed count (0 to 255); separate the counts with commas: '1,2,3'"
    );
    assert_eq!(
        bad("4,5 6").to_string(),
        "item 2: '5 6' is not a seed count (0 to 255); separate the counts with commas: '5,6'"
    );
    assert_eq!(
        "1 2,3,4 S".parse::<Position>().unwrap_err().to_string(),
        "column 1: '1 2' is not a seed count (0 to 255); separate the counts with commas: '1,2'"
    );
    // Digits only, as a position's counts (tester 15: '+4' was read as 4).
    assert_eq!(
        bad("4,+4").to_string(),
        "item 2: '+4' is not a seed count (0 to 255)"
    );
    assert_eq!(
        bad("4,,4").to_string(),
        "item 2: an empty item is not a seed count (0 to 255)"
    );
    assert_eq!(
        bad("").to_string(),
        "item 1: an empty item is not a seed count (0 to 255)"
    );
    // 13 items parse; Start::layout refuses the house count.
    let thirteen = Start::parse_counts(&["1"; 13].join(",")).unwrap();
    assert_eq!(Start::layout(&thirteen, false), Err(RulesError::Houses(13)));
}

#[test]
fn rules_errors() {
    assert_eq!(Start::uniform(0, 4), Err(RulesError::Houses(0)));
    assert_eq!(Start::uniform(13, 4), Err(RulesError::Houses(13)));
    assert_eq!(Start::uniform(6, 0), Err(RulesError::NoSeeds));
    // 2 * 6 * 22 = 264 seeds.
    assert_eq!(Start::uniform(6, 22), Err(RulesError::TooManySeeds(264)));
    assert_eq!(Start::uniform(12, 11), Err(RulesError::TooManySeeds(264)));
    assert!(Start::uniform(1, 127).is_ok());
    assert_eq!(
        Start::uniform(1, u32::MAX),
        Err(RulesError::TooManySeeds(2 * u32::MAX as u64))
    );
    assert_eq!(Start::layout(&[], false), Err(RulesError::Houses(0)));
    assert_eq!(Start::layout(&[1; 13], false), Err(RulesError::Houses(13)));
    assert_eq!(Start::layout(&[0, 0, 0], true), Err(RulesError::NoSeeds));
    assert_eq!(
        Start::layout(&[128], false),
        Err(RulesError::TooManySeeds(256))
    );
    assert!(Start::layout(&[127, 0], false).is_ok());

    assert_eq!(
        "capture".parse::<Rules>(),
        Err(RulesError::NotKeyValue("capture".into()))
    );
    assert_eq!(
        "colour=red".parse::<Rules>(),
        Err(RulesError::UnknownKey("colour".into()))
    );
    let e = "capture=greedy".parse::<Rules>().unwrap_err();
    assert_eq!(
        e,
        RulesError::BadValue {
            key: "capture".into(),
            value: "greedy".into(),
            expected: "standard or empty"
        }
    );
    assert_eq!(
        e.to_string(),
        "'greedy' is not a value of capture: expected standard or empty"
    );
    for (text, key) in [
        ("end=never", "end"),
        ("leftovers=me", "leftovers"),
        ("majority-end=maybe", "majority-end"),
        ("pie=1", "pie"),
        ("first-move-extra-turn=", "first-move-extra-turn"),
    ] {
        match text.parse::<Rules>() {
            Err(RulesError::BadValue { key: k, .. }) => assert_eq!(k, key),
            other => panic!("{text}: {other:?}"),
        }
    }
    // Keys and values are read in any case (tester 77: `capture=EMPTY` was refused while
    // `--level PERFECT` and `SWAP` were taken); errors quote them as given, the key as known.
    assert_eq!(
        "Capture=EMPTY End=Mover-Blocked LEFTOVERS=Nobody Majority-End=ON PIE=Yes \
         first-move-extra-turn=OFF"
            .parse::<Rules>()
            .map(|r| r.to_string()),
        Ok(
            "capture=empty end=mover-blocked leftovers=nobody majority-end=on pie=on \
            first-move-extra-turn=off"
                .to_string()
        )
    );
    assert_eq!(
        "PIE=Maybe".parse::<Rules>(),
        Err(RulesError::BadValue {
            key: "pie".into(),
            value: "Maybe".into(),
            expected: "on or off (or true/false, yes/no)"
        })
    );
    assert_eq!(
        "pie=on PIE=off".parse::<Rules>(),
        Err(RulesError::RepeatedKey("PIE".into()))
    );
    assert!(RulesError::UnknownKey("x".into())
        .to_string()
        .contains("known: capture"));
    assert_eq!(
        RulesError::Houses(13).to_string(),
        "a side must have 1 to 12 houses, not 13"
    );
}

#[test]
fn setup_errors() {
    let setup = |pits: &[u8], to_move: Option<Side>, phase: Phase| {
        Position::from_setup(&Setup {
            pits: pits.to_vec(),
            to_move,
            phase,
        })
    };
    let s = Some(Side::South);
    for n in [0, 2, 3, 5, 27, 28] {
        assert_eq!(
            setup(&vec![1; n], s, Phase::Normal),
            Err(SetupError::PitCount(n)),
            "{n}"
        );
    }
    assert!(setup(&[1; 26], s, Phase::Normal).is_ok());
    // A finished game may hold no seed (leftovers=nobody), written with the side that would
    // have moved or without.
    let mut empty = setup(&[0; 4], s, Phase::Normal).unwrap();
    empty.settle(&Rules::default());
    assert!(empty.is_over());
    assert_eq!(empty.side(), Side::South);
    assert!(setup(&[0; 4], None, Phase::Normal).unwrap().is_over());
    assert_eq!(
        setup(&[100, 100, 50, 6], s, Phase::Normal),
        Err(SetupError::TooManySeeds(256))
    );
    assert!(setup(&[100, 100, 50, 5], s, Phase::Normal).is_ok());
    assert_eq!(
        setup(&[1, 0, 1, 0], None, Phase::Normal),
        Err(SetupError::OverWithSeeds)
    );
    assert!(setup(&[0, 3, 0, 2], None, Phase::Normal).is_ok());
    let n = Some(Side::North);
    assert_eq!(
        setup(&[1, 0, 1, 0], n, Phase::Opening),
        Err(SetupError::Phase {
            phase: "opening",
            needs: "South to move"
        })
    );
    assert_eq!(
        setup(&[1, 0, 1, 0], n, Phase::FirstTurn),
        Err(SetupError::Phase {
            phase: "first-turn",
            needs: "South to move"
        })
    );
    assert_eq!(
        setup(&[1, 0, 1, 0], s, Phase::PieChoice),
        Err(SetupError::Phase {
            phase: "pie",
            needs: "North to move"
        })
    );
    assert_eq!(
        setup(&[0, 1, 0, 1], None, Phase::PieChoice),
        Err(SetupError::Phase {
            phase: "pie",
            needs: "a game that is not over"
        })
    );
    // Every house empty is a finished game, with a side too: no phase tag (tester 17: the tag
    // was dropped, so a 'pie' tag passed without the pie rule).
    assert_eq!(
        setup(&[0, 1, 0, 1], Some(Side::North), Phase::PieChoice),
        Err(SetupError::Phase {
            phase: "pie",
            needs: "a game that is not over"
        })
    );
    // The side to move has no seeds: over under every end rule, so no phase either (tester
    // 19: `1,1,1,2,0,0,0,0 N pie` was read, then solved as a finished game); the other row
    // empty is a game the mover-blocked end goes on with.
    for (pits, side, phase, tag) in [
        (
            [1, 1, 1, 2, 0, 0, 0, 0],
            Side::North,
            Phase::PieChoice,
            "pie",
        ),
        (
            [0, 0, 0, 2, 1, 1, 1, 0],
            Side::South,
            Phase::FirstTurn,
            "first-turn",
        ),
    ] {
        assert_eq!(
            setup(&pits, Some(side), phase),
            Err(SetupError::Phase {
                phase: tag,
                needs: "a game that is not over"
            })
        );
    }
    assert!(setup(
        &[0, 0, 0, 2, 1, 1, 1, 0],
        Some(Side::North),
        Phase::PieChoice
    )
    .is_ok());
    let over = Position::from_setup(&Setup {
        pits: vec![0, 1, 0, 1],
        to_move: Some(Side::North),
        phase: Phase::Normal,
    })
    .unwrap();
    assert!(over.is_over());
    assert_eq!(over.side(), Side::North);
    assert_eq!(Position::from_setup(&over.to_setup()).unwrap(), over);
    assert!(SetupError::PitCount(5).to_string().contains("not 5"));
}

#[test]
fn parse_position_errors_say_where() {
    assert_eq!(parse_err(""), ParsePositionError::Empty);
    assert_eq!(parse_err("  \t "), ParsePositionError::Empty);
    // Columns count characters from 1.
    assert_eq!(
        parse_err("4,4,x,4 S"),
        ParsePositionError::BadCount {
            at: 5,
            text: "x".into()
        }
    );
    assert_eq!(
        parse_err("4,4,4a,4 S"),
        ParsePositionError::BadCount {
            at: 5,
            text: "4a".into()
        }
    );
    // A comma between the counts and the side is named, not the side (tester 63: "'S' is not a
    // seed count").
    assert_eq!(
        parse_err("4,4,4,4,0,4,4,4,4,0, S"),
        ParsePositionError::CommaBeforeSide { at: 20 }
    );
    assert_eq!(
        parse_err("1,0,1,0,n pie"),
        ParsePositionError::CommaBeforeSide { at: 8 }
    );
    // A word that is no side still reads as a bad count.
    assert_eq!(
        parse_err("1,0,1,0, x"),
        ParsePositionError::BadCount {
            at: 10,
            text: "x".into()
        }
    );
    // A comma after the side is named, not the count before it (tester 47: "'0 S' is not a
    // seed count" for a trailing comma).
    assert_eq!(
        parse_err("1,0,1,0 S,"),
        ParsePositionError::Trailing {
            at: 10,
            text: ",".into()
        }
    );
    assert_eq!(
        parse_err("1,0,1,0 n pie,"),
        ParsePositionError::Trailing {
            at: 14,
            text: ",".into()
        }
    );
    // A second phase tag (tester 95: "unexpected 'pie' (after the side only 'opening',
    // 'first-turn' or 'pie' may follow)").
    assert_eq!(
        parse_err("3,3,3,0,3,3,3,0 S opening pie").to_string(),
        "column 27: unexpected 'pie' after the phase tag: a position ends with its one tag \
         ('opening', 'first-turn' or 'pie')"
    );
    // Counts separated by spaces: the missing comma is named (tester 49: "'0' is not a side").
    assert_eq!(
        parse_err("1 0 1 0 S"),
        ParsePositionError::MissingComma {
            at: 3,
            text: "0".into()
        }
    );
    assert!(parse_err("1 0 1 0 S")
        .to_string()
        .contains("separated by commas"));
    // Phase tags in either case, as the side letter.
    assert_eq!(
        "3,3,3,0,3,3,3,0 S OPENING".parse::<Position>().unwrap(),
        "3,3,3,0,3,3,3,0 S opening".parse::<Position>().unwrap()
    );
    // Not a side after the space: still the item as a whole.
    assert_eq!(
        parse_err("4 4,4,4 S"),
        ParsePositionError::BadCount {
            at: 1,
            text: "4 4".into()
        }
    );
    assert_eq!(
        parse_err("4,4,,4 S"),
        ParsePositionError::BadCount {
            at: 5,
            text: "".into()
        }
    );
    assert_eq!(
        parse_err("4, 4, 256,4 S"),
        ParsePositionError::BadCount {
            at: 7,
            text: "256".into()
        }
    );
    assert_eq!(
        parse_err("-1,4,4,4 S"),
        ParsePositionError::BadCount {
            at: 1,
            text: "-1".into()
        }
    );
    assert_eq!(
        parse_err("é,4,4,4 S"),
        ParsePositionError::BadCount {
            at: 1,
            text: "é".into()
        }
    );
    assert_eq!(
        parse_err("é ,x,4,4 S"),
        ParsePositionError::BadCount {
            at: 1,
            text: "é".into()
        }
    );
    assert_eq!(
        parse_err("4,é,x,4 S"),
        ParsePositionError::BadCount {
            at: 3,
            text: "é".into()
        }
    );
    assert_eq!(
        parse_err("  4,4,4,4 X"),
        ParsePositionError::BadSide {
            at: 11,
            text: "X".into()
        }
    );
    assert_eq!(
        parse_err("4,4,4,4 !"),
        ParsePositionError::BadSide {
            at: 9,
            text: "!".into()
        }
    );
    // Another separator than the comma, right after a count (tester 16: it was told "';4;4' is
    // not a side to move").
    assert_eq!(
        parse_err("4;4;4;4 S"),
        ParsePositionError::BadSeparator {
            at: 2,
            text: ";".into()
        }
    );
    assert_eq!(
        parse_err("4,4,4.4 S").to_string(),
        "column 6: '.' after a seed count: counts are separated by commas, e.g. \
         '4,4,4,4,4,4,0,4,4,4,4,4,4,0 S'"
    );
    assert_eq!(
        parse_err("4,4,4,4 S foo"),
        ParsePositionError::Trailing {
            at: 11,
            text: "foo".into()
        }
    );
    assert_eq!(
        parse_err("4,4,4,4 S first-turn bar"),
        ParsePositionError::AfterPhaseTag {
            at: 22,
            text: "bar".into()
        }
    );
    assert_eq!(
        parse_err("4,4,4 S"),
        ParsePositionError::Setup(SetupError::PitCount(3))
    );
    assert_eq!(
        parse_err("1,0,1,0"),
        ParsePositionError::Setup(SetupError::OverWithSeeds)
    );
    assert!(matches!(
        parse_err("4,4,4,4 N opening"),
        ParsePositionError::Setup(SetupError::Phase { .. })
    ));
    assert_eq!(
        parse_err("4,4,x,4 S").to_string(),
        "column 5: 'x' is not a seed count (0 to 255)"
    );
    assert_eq!(
        parse_err("4,4,4,4 X").to_string(),
        "column 9: 'X' is not a side to move (S, N, South or North, in any case)"
    );
    // Accepted variants: spaces, tabs, lower case, no space before the side.
    for ok in [
        "4 , 4, 4 ,4 s",
        "4,4,4,4\tS",
        "4,4,4,4S",
        "4,4,4,4 S\topening",
        " 4,4,4,4 N pie ",
    ] {
        assert!(ok.parse::<Position>().is_ok(), "{ok}");
    }
    // The side's name, as `Display` for `Side` writes it, in any case.
    let p = |t: &str| t.parse::<Position>().unwrap();
    assert_eq!(p("4,4,4,4 South"), p("4,4,4,4 S"));
    assert_eq!(p("4,4,4,4 north PIE"), p("4,4,4,4 N pie"));
    assert_eq!(p("4,4,4,4 NORTH").to_move(), Some(Side::North));
    assert!(matches!(
        parse_err("4,4,4,4, South"),
        ParsePositionError::CommaBeforeSide { .. }
    ));
    assert!(matches!(
        parse_err("4,4,4,4 Southern"),
        ParsePositionError::BadSide { .. }
    ));
}

#[test]
fn serde_reads_side_letters_and_integer_houses() {
    // Sides: written as names, read as names or letters.
    assert_eq!(serde_json::to_string(&Side::South).unwrap(), "\"South\"");
    for (text, side) in [
        ("\"South\"", Side::South),
        ("\"S\"", Side::South),
        ("\"North\"", Side::North),
        ("\"N\"", Side::North),
    ] {
        assert_eq!(serde_json::from_str::<Side>(text).unwrap(), side, "{text}");
    }
    assert!(serde_json::from_str::<Side>("\"X\"").is_err());
    // Moves: written as strings, read as strings or integers.
    assert_eq!(serde_json::to_string(&Move::Sow(3)).unwrap(), "\"3\"");
    for (text, mv) in [
        ("\"3\"", Move::Sow(3)),
        ("3", Move::Sow(3)),
        ("255", Move::Sow(255)),
        ("\"swap\"", Move::Swap),
    ] {
        assert_eq!(serde_json::from_str::<Move>(text).unwrap(), mv, "{text}");
    }
    let err = |text: &str| serde_json::from_str::<Move>(text).unwrap_err().to_string();
    assert!(
        err("256").contains("there is no house 256"),
        "{}",
        err("256")
    );
    assert!(err("-1").contains("'-1' is not a move"), "{}", err("-1"));
    assert!(err("3.5").contains("a house number"), "{}", err("3.5"));
    assert!(err("true").contains("a house number"), "{}", err("true"));
    let moves: Vec<Move> = serde_json::from_str("[3, \"6\", \"swap\"]").unwrap();
    assert_eq!(moves, [Move::Sow(3), Move::Sow(6), Move::Swap]);
}

#[test]
fn move_errors() {
    let r = Rules::default();
    let mut p: Position = "0,4,4,4,4,4,0,4,4,4,4,4,4,0 S".parse().unwrap();
    assert_eq!(
        p.play(&r, Move::Sow(0)),
        Err(MoveError::NoSuchHouse {
            house: 0,
            houses: 6
        })
    );
    assert_eq!(
        p.play(&r, Move::Sow(7)),
        Err(MoveError::NoSuchHouse {
            house: 7,
            houses: 6
        })
    );
    assert_eq!(p.play(&r, Move::Sow(1)), Err(MoveError::EmptyHouse(1)));
    assert_eq!(p.play(&r, Move::Swap), Err(MoveError::SwapNotAllowed));
    assert_eq!(p.to_string(), "0,4,4,4,4,4,0,4,4,4,4,4,4,0 S");
    let mut over: Position = "0,0,0,0,0,0,24,0,0,0,0,0,0,24".parse().unwrap();
    assert_eq!(over.play(&r, Move::Sow(1)), Err(MoveError::GameOver));
    // Over by the rules but not yet swept.
    let mut unswept: Position = "0,0,0,0,0,0,24,1,0,0,0,0,0,23 S".parse().unwrap();
    assert_eq!(unswept.play(&r, Move::Sow(1)), Err(MoveError::GameOver));
    assert_eq!("x".parse::<Move>(), Err(MoveError::Parse("x".into())));
    assert_eq!(
        "256".parse::<Move>(),
        Err(MoveError::HouseTooLarge("256".into()))
    );
    let huge = "99999999999999999999999";
    assert_eq!(
        huge.parse::<Move>(),
        Err(MoveError::HouseTooLarge(huge.into()))
    );
    assert_eq!(
        MoveError::HouseTooLarge("256".into()).to_string(),
        "there is no house 256: a side has at most 12 houses"
    );
    // Plain digits only, as every front end reads them.
    for bad in ["+3", "03", "-3", "3.0", "0x3", "٣"] {
        assert_eq!(
            bad.parse::<Move>(),
            Err(MoveError::Parse(bad.into())),
            "{bad}"
        );
    }
    assert_eq!("0".parse::<Move>(), Ok(Move::Sow(0)));
    assert_eq!(" 12 ".parse::<Move>(), Ok(Move::Sow(12)));
    assert_eq!("SWAP".parse::<Move>(), Ok(Move::Swap));
    assert_eq!(" SWAP ".parse::<Move>(), Ok(Move::Swap));
    assert_eq!("3".parse::<Move>(), Ok(Move::Sow(3)));
    assert_eq!(
        MoveError::NoSuchHouse {
            house: 7,
            houses: 6
        }
        .to_string(),
        "there is no house 7: houses are numbered 1 to 6"
    );
}

#[test]
fn turn_errors() {
    let r = Rules::default();
    let start: Position = "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S".parse().unwrap();
    let mut p = start;
    // "3" alone stops after an extra turn.
    let t: Turn = "3".parse().unwrap();
    assert_eq!(
        t.play(&mut p, &r),
        Err(TurnError::Incomplete {
            turn: "3".into(),
            index: 1,
            mv: Move::Sow(3)
        })
    );
    // "1-2": house 1 ends the turn (no extra turn), but a move follows.
    let t: Turn = "1-2".parse().unwrap();
    assert_eq!(
        t.play(&mut p, &r),
        Err(TurnError::TooLong {
            turn: "1-2".into(),
            index: 1,
            mv: Move::Sow(1),
            game_over: false
        })
    );
    // "3-3": house 3 is empty for the second move.
    let t: Turn = "3-3".parse().unwrap();
    assert_eq!(
        t.play(&mut p, &r),
        Err(TurnError::Move {
            turn: "3-3".into(),
            index: 2,
            mv: Move::Sow(3),
            source: MoveError::EmptyHouse(3)
        })
    );
    assert_eq!(Turn(vec![]).play(&mut p, &r), Err(TurnError::Empty));
    // A failed turn leaves the position unchanged.
    assert_eq!(p, start);
    // An empty action, before any other problem (`-x`), in one wording.
    for empty in ["", "-1", "3--6", "3-", ",3", "-x", "3- -6"] {
        assert_eq!(
            empty.parse::<Turn>(),
            Err(MoveError::EmptyAction),
            "{empty}"
        );
    }
    assert_eq!(
        MoveError::EmptyAction.to_string(),
        "an empty action; join the actions of one turn with single dashes or commas and no spaces, e.g. \
         3-6 (a trailing dash, as in 3-, says the turn goes on)"
    );
    assert_eq!("3-x".parse::<Turn>(), Err(MoveError::Parse("x".into())));
    assert_eq!("3,6".parse::<Turn>().unwrap().to_string(), "3-6");
    assert_eq!(
        TurnError::Move {
            turn: "3-3".into(),
            index: 2,
            mv: Move::Sow(3),
            source: MoveError::EmptyHouse(3)
        }
        .to_string(),
        "'3-3': action 2 (house 3) cannot be played: house 3 is empty"
    );
    // A game record says the same, after the turn's number; a turn of one action keeps the
    // shorter form.
    let rec = GameRecord::parse_text("[Start \"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\"]\n1. S 3-3\n")
        .unwrap_err();
    assert_eq!(
        rec.to_string(),
        "turn 1: '3-3': action 2 (house 3) cannot be played: house 3 is empty"
    );
    let rec =
        GameRecord::parse_text("[Start \"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\"]\n1. S 3-6\n2. N 9\n")
            .unwrap_err();
    assert_eq!(
        rec.to_string(),
        "turn 2: move 9: there is no house 9: houses are numbered 1 to 6"
    );
    // A house number too large for any board is told in the same words, with the board's
    // houses (was: "a side has at most 12 houses"), on any board.
    for (start, houses) in [
        ("4,4,4,4,4,4,0,4,4,4,4,4,4,0 S", 6),
        ("3,3,3,0,3,3,3,0 S", 3),
    ] {
        let rec =
            GameRecord::parse_text(&format!("[Start \"{start}\"]\n1. S 99999\n")).unwrap_err();
        assert_eq!(
            rec.to_string(),
            format!(
                "turn 1: move 99999: there is no house 99999: houses are numbered 1 to {houses}"
            )
        );
    }
    // An empty action in a record is named as such (was: "move : '' is not a move"), the turn
    // as written.
    for (turn, mv) in [("-", "-"), ("3--1", "3--1"), ("-1", "-1"), ("3--", "3-")] {
        let rec = GameRecord::parse_text(&format!(
            "[Start \"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\"]\n1. S {turn}\n"
        ))
        .unwrap_err();
        assert_eq!(
            rec.to_string(),
            format!("turn 1: move {mv}: {}", MoveError::EmptyAction),
            "{turn}"
        );
    }
    // A token that is no move at all is quoted once, by the reason (tester 77: "move ;: ';'
    // is not a move"); a bad action inside a turn is still named with its turn.
    for (turn, said) in [
        (";", "turn 1: ';' is not a move".to_string()),
        ("9xyz", "turn 1: '9xyz' is not a move".to_string()),
        ("3-x", "turn 1: move 3-x: 'x' is not a move".to_string()),
    ] {
        let rec = GameRecord::parse_text(&format!(
            "[Start \"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\"]\n1. S {turn}\n"
        ))
        .unwrap_err();
        let text = rec.to_string();
        assert!(
            text.starts_with(&said) && text.ends_with("(digits, no leading zero) or 'swap'"),
            "{turn}: {text}"
        );
    }
    // Elsewhere, `on_board` leaves an error as it is.
    assert_eq!(
        MoveError::EmptyHouse(3).on_board(6),
        MoveError::EmptyHouse(3)
    );
}

/// A house number above 255 after other actions (`3-99999`) is told as house 9 is, the first
/// problem first (tester 65: the actions before it went unchecked, in other words).
#[test]
fn a_large_house_in_a_turn_is_told_as_a_small_one() {
    let start: Position = "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S".parse().unwrap();
    let r = Rules::default();
    for small in ["3-9", "1-9", "9-9", "3-6-9", "3-9-", "3,9", "3-1-9", "2-9"] {
        let large = small.replace('9', "99999");
        // As a record's turn: the same words, the number apart.
        let record = |t: &str| {
            GameRecord::parse_text(&format!("[Start \"{start}\"]\n1. S {t}\n"))
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            record(&large).replace("99999", "9"),
            record(small),
            "{large}"
        );
        // The library call: the error of the first action that cannot be played, and the
        // position it was to be played in.
        let (err, at) = Turn::refuse_large_house(&large, &start, &r).expect(small);
        let small_turn: Turn = small.trim_end_matches('-').parse().unwrap();
        let mut p = start;
        let small_err = small_turn
            .play_as(&mut p, &r, kalah_core::TurnEnd::Whole)
            .unwrap_err();
        let index = match (&err, &small_err) {
            (TurnError::NoSuchLargeHouse { index, .. }, TurnError::Move { index: i, .. })
            | (TurnError::Move { index, .. }, TurnError::Move { index: i, .. })
            | (TurnError::TooLong { index, .. }, TurnError::TooLong { index: i, .. }) => {
                assert_eq!(index, i, "{large}");
                *index
            }
            other => panic!("{large}: {other:?}"),
        };
        let mut before = start;
        for &mv in &small_turn.moves()[..index - 1] {
            before.play(&r, mv).unwrap();
        }
        assert_eq!(at, before, "{large}");
    }
    // Not for a lone house (its reader's own words), nor one after a problem reading finds.
    for t in ["99999", "x-99999", "3--99999", "3-9"] {
        assert_eq!(Turn::refuse_large_house(t, &start, &r), None, "{t}");
    }
}

#[test]
fn a_pie_record_without_the_opening_tag_says_why_swap_fails() {
    // A pie-rule record whose Start lacks the tag: the swap's error says why.
    let e = GameRecord::parse_text(
        "[Rules \"pie=on\"]\n[Start \"3,3,3,0,3,3,3,0 S\"]\n1. S 2\n2. N swap\n",
    )
    .unwrap_err();
    let text = e.to_string();
    assert!(
        matches!(e, RecordError::SwapPastOpening { turn: 2, .. })
            && text.contains("no phase tag")
            && text.contains("\"3,3,3,0,3,3,3,0 S opening\""),
        "{text}"
    );
}

#[test]
fn record_errors() {
    let ok = "[Rules \"capture=standard\"]\n[Start \"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\"]\n\n1. S 3-6\n2. N 1\n";
    let rec = GameRecord::parse_text(ok).unwrap();
    assert_eq!(rec.moves(), &[Move::Sow(3), Move::Sow(6), Move::Sow(1)]);
    let err = |t: &str| GameRecord::parse_text(t).unwrap_err();
    assert_eq!(
        err("[South \"x\"\n"),
        RecordError::Syntax {
            line: 1,
            message: "a tag line must end with ']'".into()
        }
    );
    assert!(matches!(
        err("[South]\n"),
        RecordError::Syntax { line: 1, .. }
    ));
    assert!(matches!(
        err("\n[South x]\n"),
        RecordError::Syntax { line: 2, .. }
    ));
    assert!(matches!(
        err("[South \"x\"] y\n"),
        RecordError::Syntax { line: 1, .. }
    ));
    assert!(matches!(
        err("[Rules \"pie=maybe\"]"),
        RecordError::Rules {
            line: 1,
            source: RulesError::BadValue { .. }
        }
    ));
    assert!(matches!(
        err("\n\n[Start \"4,4,x,4 S\"]"),
        RecordError::Start {
            line: 3,
            source: ParsePositionError::BadCount { at: 5, .. }
        }
    ));
    assert!(matches!(
        err("1. S 3-6\n2. N 9\n"),
        RecordError::Illegal {
            turn: 2,
            source: MoveError::NoSuchHouse {
                house: 9,
                houses: 6
            },
            ..
        }
    ));
    assert!(matches!(err("1. S 3\n"), RecordError::Turn { turn: 1, .. }));
    assert!(matches!(
        err("1. S 1-2\n"),
        RecordError::Turn { turn: 1, .. }
    ));
    assert!(matches!(
        err("1. S 1-\n"),
        RecordError::Turn { turn: 1, .. }
    ));
    // Labels are checked: turn 2 is North's; turn numbers must count up from 1.
    assert!(matches!(
        err("1. S 1\n2. S 2\n"),
        RecordError::Syntax { line: 2, .. }
    ));
    assert!(matches!(
        err("1. S 1\n3. N 2\n"),
        RecordError::Syntax { line: 2, .. }
    ));
    assert!(matches!(
        err("1. S 3-\n2. N 1\n"),
        RecordError::Syntax { line: 2, .. }
    ));
    assert_eq!(
        err("[Result \"25-23\"]\n1. S 1\n"),
        RecordError::ResultMismatch {
            stated: "25-23".into(),
            actual: "*".into()
        }
    );
    // A Result tag that is no result is a syntax error, not a mismatch (library tester 47).
    for bad in ["x", "25-", "-23", "25-23-1", "25:23", "300-0", "+1-2", ""] {
        let e = err(&format!("[Result \"{bad}\"]\n1. S 1\n"));
        assert!(
            matches!(&e, RecordError::Syntax { line: 1, message } if message.contains("is not a result")),
            "{bad:?}: {e:?}"
        );
    }
    // A Start whose tag fits neither the rules nor the side to move names the rules first.
    assert!(matches!(
        err("[Start \"3,3,3,3,0,3,3,3,3,0 S pie\"]\n1. S 1\n"),
        RecordError::Syntax { line: 1, message }
            if message.contains("Start position's phase tag 'pie' belongs to the opening rules: add pie=on")
    ));
    assert!(matches!(
        err("[Rules \"pie=on\"]\n[Start \"3,3,3,3,0,3,3,3,3,0 S pie\"]\n1. S 1\n"),
        RecordError::Start { line: 2, .. }
    ));
    // Side labels read in either case, as a position's side letter (tester 47: `1. s 3-6` was
    // "move s is not a move"); a wrong one is still named.
    let lower = GameRecord::parse_text("1. s 3-6\n2. n 1\n").unwrap();
    assert_eq!(lower, GameRecord::parse_text("1. S 3-6\n2. N 1\n").unwrap());
    assert!(matches!(
        err("1. n 3-6\n"),
        RecordError::Syntax { line: 1, message } if message.contains("labelled n but South")
    ));
    // The JSON form takes the text form's defaults for the rules and the start.
    let defaults = GameRecord::parse_json(r#"{"turns": ["3-6", "1"]}"#).unwrap();
    assert_eq!(defaults, GameRecord::parse_text("3-6 1").unwrap());
    assert_eq!(
        defaults,
        GameRecord::parse_json(&defaults.to_json()).unwrap()
    );
    // Its result field is named as such, not as the text form's tag (tester 49).
    assert_eq!(
        GameRecord::parse_json(r#"{"turns": ["3-6", "1"], "result": [1, 2]}"#)
            .unwrap_err()
            .to_string(),
        "bad JSON game record: result [1, 2] disagrees with the turns, which give a game not \
         over (leave result out, or null)"
    );
    assert_eq!(
        GameRecord::parse_json("{}").unwrap(),
        GameRecord::parse_text("").unwrap()
    );
    assert!(matches!(
        GameRecord::parse_json("{"),
        Err(RecordError::Json(_))
    ));
    // A record nested too deeply is told so in a few words, not by the path of 200 keys
    // (tester 104: about 1000 characters).
    let deep = format!(
        "{{\"rules\":{}1{}}}",
        "{\"a\":".repeat(200),
        "}".repeat(200)
    );
    let e = GameRecord::parse_json(&deep).unwrap_err().to_string();
    assert!(
        e.ends_with("the JSON nests objects or lists too deeply") && e.len() < 200,
        "{e}"
    );
    // A malformed record's column counts characters too (it counted bytes).
    let e = GameRecord::parse_json("{\"south\": \"Zoë Ø\", \"north\" \"x\"}")
        .unwrap_err()
        .to_string();
    assert!(e.ends_with("at line 1 column 28"), "{e}");
    // Text after the record is refused, not dropped (tester 98); white space is fine.
    assert_eq!(
        GameRecord::parse_json("{\"turns\": [\"3-1\"]}\n\t \n").unwrap(),
        GameRecord::parse_json("{\"turns\": [\"3-1\"]}").unwrap()
    );
    for (text, at) in [
        (
            r#"{"turns": ["3-1"]} {"turns": ["1", "2"]}"#,
            "line 1 column 20",
        ),
        ("{\"turns\": [\"3-1\"]}\ntrailing", "line 2 column 1"),
        // Columns count characters, as the position parser's do, not bytes.
        (
            r#"{"south": "Zoë", "turns": ["3-1"]} ["é"]"#,
            "line 1 column 36",
        ),
    ] {
        let e = GameRecord::parse_json(text).unwrap_err().to_string();
        assert!(
            e.contains(&format!("text after the record at {at}")),
            "{text}: {e}"
        );
    }
    assert!(matches!(
        GameRecord::parse_json(r#"{"rules": {}, "start": "4,4,4,4 S", "turns": ["1 2"]}"#),
        Err(RecordError::Json(_))
    ));
    assert!(matches!(
        GameRecord::parse_json(r#"{"rules": {"pie": "x"}, "start": "4,4,4,4 S"}"#),
        Err(RecordError::Json(_))
    ));
    // Told by field and turn item, not by the lines of the text form it is read through
    // (tester 15: "line 5: turn 1 is labelled N ...", and "#" was dropped as a comment).
    let json_err = |j: &str| GameRecord::parse_json(j).unwrap_err().to_string();
    // Each item is one turn: a turn number or side label of the text form is refused (tester
    // 45: `["1.", "S", "3-6"]` was read as one turn).
    for (turns, item, bad) in [
        (r#"["N", "3-6"]"#, 1, "N"),
        (r#"["1.", "S", "3-6"]"#, 1, "1."),
        (r#"["3-6", "S"]"#, 2, "S"),
        (r#"["3-6", "N"]"#, 2, "N"),
        (r#"["3-6", "North"]"#, 2, "North"),
        (r#"["3-6", " 2. "]"#, 2, " 2. "),
    ] {
        assert_eq!(
            json_err(&format!(
                r#"{{"rules": {{}}, "start": "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S", "turns": {turns}}}"#
            )),
            format!(
                "bad JSON game record: field 'turns', item {item}: '{bad}' is not a turn (turn numbers \
                 and side labels belong to the text form; each item here is one turn)"
            )
        );
    }
    for bad in ["#", "[Rules", "3#"] {
        assert_eq!(
            json_err(&format!(
                r#"{{"rules": {{}}, "start": "4,4,4,4 S", "turns": ["1", "{bad}"]}}"#
            )),
            format!("bad JSON game record: field 'turns', item 2: '{bad}' is not a turn")
        );
    }
    // A number or label without its turn, or given twice, is refused, not dropped (tester 15:
    // `1. 1. S 3-` and `S S 3-` read; tester 17: a trailing `2. S` was dropped).
    for (text, line, message) in [
        (
            "1. S 3-6\n2. S",
            2,
            "a turn number or side label with no turn after it (turn 2 was expected)",
        ),
        (
            "1. S 3-6\n2.",
            2,
            "a turn number or side label with no turn after it (turn 2 was expected)",
        ),
        ("1. 1. S 3-", 1, "'1.' where turn 1 was expected"),
        ("S S 3-", 1, "'S' where turn 1 was expected"),
        ("S 1. 3-", 1, "'1.' where turn 1 was expected"),
    ] {
        assert_eq!(
            GameRecord::parse_text(text).unwrap_err(),
            RecordError::Syntax {
                line,
                message: message.into()
            },
            "{text:?}"
        );
    }
    // Tag names the text form cannot read back are written as one word; a tag named like a
    // standard one is left out; an empty name does not read (tester 15).
    let mut tagged = GameRecord::from_moves(
        Rules::default(),
        Position::start(&Start::default(), &Rules::default()),
        &[Move::Sow(3)],
    )
    .unwrap();
    tagged.tags = vec![
        ("My Tag".into(), "v".into()),
        ("Rules".into(), "pie=on".into()),
        (String::new(), "x".into()),
        ("Event".into(), "club".into()),
    ];
    let back = GameRecord::parse_text(&tagged.to_text()).unwrap();
    assert_eq!(
        back.tags,
        vec![
            ("My_Tag".to_string(), "v".to_string()),
            ("_".to_string(), "x".to_string()),
            ("Event".to_string(), "club".to_string()),
        ]
    );
    assert_eq!(back.rules, Rules::default());
    assert_eq!(
        GameRecord::parse_text("[ \"x\"]\n1. S 3-").unwrap_err(),
        RecordError::Syntax {
            line: 1,
            message: "a tag is [Key \"value\"]".into()
        }
    );
    // An unfinished turn may end a record with '-'; comments and other tags are ignored.
    let open =
        GameRecord::parse_text("[Event \"club # 3\"] # a comment\n1. S 3-   # South thinks\n")
            .unwrap();
    assert_eq!(open.moves(), &[Move::Sow(3)]);
    assert!(open.turns()[0].open);
    assert!(open.to_text().contains("1. S 3-\n"));
    // push reports the illegal action and keeps the record.
    let mut r = rec.clone();
    assert!(matches!(
        r.push(Move::Sow(9)),
        Err(RecordError::Illegal { turn: 3, .. })
    ));
    assert_eq!(r, rec);
}

#[test]
fn record_text_by_hand() {
    // The example of the record module's documentation.
    let doc = "[Rules \"capture=standard end=row-empty leftovers=owner majority-end=off pie=off first-move-extra-turn=on\"]\n\
               [Start \"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\"]\n[South \"Alice\"]\n[North \"kalah level strong\"]\n\
               [Result \"*\"]\n\n1. S 3-6\n2. N 1\n";
    let rec = GameRecord::parse_text(doc).unwrap();
    assert_eq!(rec.moves(), &[Move::Sow(3), Move::Sow(6), Move::Sow(1)]);
    assert_eq!(
        (rec.south.as_str(), rec.north.as_str()),
        ("Alice", "kalah level strong")
    );
    assert_eq!(rec.to_text(), doc);

    // A finished Kalah(1,3) game: South's only sowing captures and ends it, 6-0.
    let text = "[Rules \"capture=standard end=row-empty leftovers=owner majority-end=off pie=off first-move-extra-turn=on\"]\n\
                [Start \"3,0,3,0 S\"]\n[South \"Ann \\\"A\\\" #1\"]\n[North \"Bob\"]\n[Result \"6-0\"]\n\n1. S 1\n";
    let rec = GameRecord::parse_text(text).unwrap();
    assert_eq!(rec.south, "Ann \"A\" #1");
    assert_eq!(rec.result(), Some([6, 0]));
    assert_eq!(rec.to_text(), text);
    let json = rec.to_json();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["result"], serde_json::json!([6, 0]));
    assert_eq!(v["turns"], serde_json::json!(["1"]));
    assert_eq!(v["start"], "3,0,3,0 S");
    assert_eq!(v["rules"]["capture"], "standard");
    assert_eq!(GameRecord::parse_json(&json).unwrap(), rec);
    // The pie rule: North's swap is a turn of its own, then North moves again.
    let r: Rules = "pie=on".parse().unwrap();
    let start = Position::start(&Start::default(), &r);
    let rec = GameRecord::from_moves(r, start, &[Move::Sow(1), Move::Swap, Move::Sow(1)]).unwrap();
    assert!(rec.to_text().ends_with("1. S 1\n2. N swap\n3. N 1\n"));
    assert_eq!(GameRecord::parse_text(&rec.to_text()).unwrap(), rec);
}

/// On/off keys of rule text also take true/false and yes/no (as the web API's rules string
/// does); anything else names the words that work.
#[test]
fn rule_switches_take_on_off_true_false_yes_no() {
    for (on, off) in [("on", "off"), ("true", "false"), ("yes", "no")] {
        let r: Rules = format!("pie={on} majority-end={off}").parse().unwrap();
        assert!(r.pie && !r.majority_end, "{on}/{off}");
        let r: Rules = format!("pie={off} majority-end={on}").parse().unwrap();
        assert!(!r.pie && r.majority_end, "{on}/{off}");
    }
    let err = "pie=1".parse::<Rules>().unwrap_err().to_string();
    assert!(
        err.contains("'1'") && err.contains("on or off (or true/false, yes/no)"),
        "{err}"
    );
}

/// Player names are one line in both forms of a record: a line break or a tab becomes a
/// space, so the text and JSON forms read back the same names.
#[test]
fn record_names_are_one_line_in_both_forms() {
    let mut rec = GameRecord::from_moves(
        Rules::default(),
        Position::start(&Start::default(), &Rules::default()),
        &[Move::Sow(3)],
    )
    .unwrap();
    rec.south = "Ann\nLee".into();
    rec.north = "Bo\tKim \"K\"".into();
    for back in [
        GameRecord::parse_text(&rec.to_text()).unwrap(),
        GameRecord::parse_json(&rec.to_json()).unwrap(),
    ] {
        assert_eq!(back.south, "Ann Lee");
        assert_eq!(back.north, "Bo Kim \"K\"");
    }
}

#[test]
fn a_manchester_record_without_the_opening_tag_says_why_its_first_turn_fails() {
    // Tester 72: `1. S 3` under first-move-extra-turn=off from an untagged start was refused
    // without a word about the tag; with the tag it replays.
    let body = "1. S 3\n2. N 1\n";
    let e = GameRecord::parse_text(&format!(
        "[Rules \"first-move-extra-turn=off\"]\n[Start \"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\"]\n{body}"
    ))
    .unwrap_err();
    let text = e.to_string();
    assert!(
        matches!(e, RecordError::TurnPastOpening { turn: 1, .. })
            && text.contains("'3' stops")
            && text.contains("no phase tag")
            && text.contains("\"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S opening\""),
        "{text}"
    );
    let rec = GameRecord::parse_text(&format!(
        "[Rules \"first-move-extra-turn=off\"]\n[Start \"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S opening\"]\n{body}"
    ))
    .unwrap();
    assert_eq!(rec.moves(), &[Move::Sow(3), Move::Sow(1)]);
    // A first turn wrong with or without the tag is the plain turn error (tester 75: `3-1`,
    // which goes on after house 3 ends the turn, was blamed on the missing tag).
    for wrong in ["1. S 3-1\n", "1. S 3-\n"] {
        let e = GameRecord::parse_text(&format!(
            "[Rules \"first-move-extra-turn=off\"]\n[Start \"3,3,3,0,3,3,3,0 S\"]\n{wrong}"
        ))
        .unwrap_err();
        assert!(
            matches!(e, RecordError::Turn { turn: 1, .. }),
            "{wrong}: {e}"
        );
    }
    // Without the Manchester rule, the same turn is the turn error: South moves again, not
    // North.
    assert!(matches!(
        GameRecord::parse_text(&format!(
            "[Start \"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\"]\n{body}"
        ))
        .unwrap_err(),
        RecordError::ExtraTurnSkipped { turn: 1, .. }
    ));
}

#[test]
fn a_backslash_in_a_tag_value_escapes_only_a_quote_or_a_backslash() {
    // Tester 72: `C:\games` read as `C:games`.
    let rec = GameRecord::parse_text(
        "[Site \"C:\\games\\kalah\"]\n[Quote \"a \\\"b\\\" \\\\ c\\\\\"]\n1. S 3-6\n",
    )
    .unwrap();
    let tags: Vec<(String, String)> = rec.tags.clone();
    assert_eq!(
        tags,
        vec![
            ("Site".to_string(), "C:\\games\\kalah".to_string()),
            ("Quote".to_string(), "a \"b\" \\ c\\".to_string()),
        ]
    );
    // A value ending in a backslash escapes its closing quote: told so, with the value mended
    // (tester 104: "must be in double quotes", though it was in quotes).
    let e = GameRecord::parse_text("[Site \"C:\\games\\\"]\n1. S 3-6\n")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "line 1: the value of tag Site has no closing quote: its last '\\\"' is a quote inside \
         the value; if the value ends in a backslash, write that one '\\\\' (\"C:\\games\\\\\")"
    );
    let mended = GameRecord::parse_text("[Site \"C:\\games\\\\\"]\n1. S 3-6\n").unwrap();
    assert_eq!(
        mended.tags,
        [("Site".to_string(), "C:\\games\\".to_string())]
    );
    // A quote never closed, the line cut short (tester 110: "must be in double quotes").
    for text in [
        "[Event \"abc\n1. S 3-6\n",
        "[Rules \"capture=standard end=row-empty\n",
    ] {
        let e = GameRecord::parse_text(text).unwrap_err().to_string();
        assert!(e.ends_with("has no closing double quote"), "{text:?}: {e}");
        assert!(e.starts_with("line 1: the value of tag "), "{e}");
    }
    // Without an opening quote, the old message.
    let e = GameRecord::parse_text("[Site C:\\games\\\"]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.ends_with("the value of tag Site must be in double quotes"),
        "{e}"
    );
    // Written with every backslash escaped, and read back the same, in both forms.
    let text = rec.to_text();
    assert!(text.contains("[Site \"C:\\\\games\\\\kalah\"]"), "{text}");
    assert_eq!(GameRecord::parse_text(&text).unwrap(), rec);
    assert_eq!(GameRecord::parse_json(&rec.to_json()).unwrap(), rec);
}

#[test]
fn errors_quote_long_input_shortened() {
    // Tester 74: a 60 000-digit move came back whole, twice.
    let digits = "1".repeat(60_000);
    let pos = Position::start(
        &kalah_core::Start::uniform(6, 4).unwrap(),
        &Rules::default(),
    );
    let turn = format!("3-{digits}");
    let e = Turn::refuse_large_house(&turn, &pos, &Rules::default())
        .expect("a house above 255")
        .0
        .to_string();
    assert!(e.len() < 300, "{e}");
    assert!(
        e.contains("'3-111111111111111111111111111111… (60002 characters)'"),
        "{e}"
    );
    assert!(
        e.contains("(house 11111111111111111111111111111111… (60000 characters))"),
        "{e}"
    );
    let e = format!("4,{digits},4 S")
        .parse::<Position>()
        .unwrap_err()
        .to_string();
    assert!(e.len() < 200 && e.contains("(60000 characters)"), "{e}");
    let e = format!("capture={digits}")
        .parse::<Rules>()
        .unwrap_err()
        .to_string();
    assert!(e.len() < 200 && e.contains("(60000 characters)"), "{e}");
    // Short input is quoted whole.
    assert_eq!(kalah_core::error::clipped("3-6"), "3-6");
    let forty = "é".repeat(40);
    assert_eq!(kalah_core::error::clipped(&forty), forty.as_str());
    assert_eq!(
        kalah_core::error::clipped(&"é".repeat(41)),
        format!("{}… (41 characters)", "é".repeat(32))
    );
}

#[test]
fn a_json_result_that_is_not_two_stores_is_told_so() {
    // Tester 72: `"result": [1,1,0]` was "trailing characters at line 1 column 50".
    for bad in [
        "[1,1,0]",
        "[1]",
        "\"25-23\"",
        "[1,300]",
        "[-1,2]",
        "[1.5,2]",
        "{}",
    ] {
        let e = GameRecord::parse_json(&format!("{{\"turns\":[\"3-6\"],\"result\":{bad}}}"))
            .unwrap_err();
        assert!(
            matches!(&e, RecordError::Json(m) if m.contains("field 'result' must be null or [South's store, North's store]")),
            "{bad}: {e}"
        );
    }
    let rec = GameRecord::parse_json("{\"turns\":[\"3-6\"],\"result\":null}").unwrap();
    assert_eq!(rec.moves(), &[Move::Sow(3), Move::Sow(6)]);
}

/// A tag or comment that is not a pair is told so by field and item, whatever its length or
/// type (a tag of three items was "trailing characters at line 1 column 49").
#[test]
fn a_json_tag_or_comment_that_is_not_a_pair_is_told_so() {
    let cases = [
        (
            "tags",
            "[\"Event\", \"x\", \"y\"]",
            "a tag is a pair [name, value]",
        ),
        ("tags", "[\"Event\"]", "a tag is a pair [name, value]"),
        (
            "tags",
            "\"Event\"",
            "a tag is a pair [name, value], not string \"Event\"",
        ),
        ("tags", "{}", "a tag is a pair [name, value], not an object"),
        (
            "comments",
            "[1, \"a\", \"b\"]",
            "a comment is a pair [turns before it, text]",
        ),
        (
            "comments",
            "3",
            "a comment is a pair [turns before it, text], not integer `3`",
        ),
    ];
    for (field, item, want) in cases {
        let text = format!("{{\"turns\":[\"3-6\"],\"{field}\":[{item}]}}");
        let e = GameRecord::parse_json(&text).unwrap_err();
        assert!(
            matches!(&e, RecordError::Json(m) if m == &format!("field '{field}', item 1: {want}")),
            "{text}: {e}"
        );
    }
    // A wrong item inside a pair is still named by its place.
    let e = GameRecord::parse_json("{\"tags\":[[\"Event\", 3]]}").unwrap_err();
    assert!(
        e.to_string()
            .contains("field 'tags', item 1, item 2: expected a string, not the number 3"),
        "{e}"
    );
}

/// `Rules` read with serde takes what the JSON record and the web API take (tester 87: `{"pie":
/// "on"}` and `{"Capture": "EMPTY"}` failed with serde, while the library's own readers took
/// them), and reads back what it writes.
#[test]
fn serde_reads_rules_as_the_record_and_the_api_do() {
    let read = |text: &str| serde_json::from_str::<Rules>(text);
    let pie = Rules {
        pie: true,
        ..Rules::default()
    };
    assert_eq!(read(r#"{"pie": "on"}"#).unwrap(), pie);
    assert_eq!(read(r#"{"PIE": true}"#).unwrap(), pie);
    assert_eq!(read(r#""pie=on""#).unwrap(), pie);
    assert_eq!(read("null").unwrap(), Rules::default());
    assert_eq!(read("{}").unwrap(), Rules::default());
    let empty = read(r#"{"Capture": "EMPTY"}"#).unwrap();
    assert_eq!(empty.capture, kalah_core::CaptureRule::Empty);
    for bad in [
        r#"{"pie": "maybe"}"#,
        r#"{"colour": "red"}"#,
        "3",
        r#"{"pie": [1]}"#,
    ] {
        let e = read(bad).unwrap_err().to_string();
        assert!(!e.is_empty(), "{bad}");
    }
    assert!(read(r#"{"colour": "red"}"#)
        .unwrap_err()
        .to_string()
        .contains("colour"));
    let all = Rules {
        capture: kalah_core::CaptureRule::Empty,
        end: kalah_core::EndRule::MoverBlocked,
        leftovers: kalah_core::LeftoverRule::Nobody,
        majority_end: true,
        pie: true,
        first_move_extra_turn: false,
    };
    for rules in [Rules::default(), all] {
        let text = serde_json::to_string(&rules).unwrap();
        assert_eq!(read(&text).unwrap(), rules, "{text}");
    }
}

/// `Side` reads what it writes and the letters positions use (tester 87: it could be shown
/// but not read); anything else is named.
#[test]
fn sides_read_their_letters_and_names() {
    use kalah_core::Side;
    for side in [Side::South, Side::North] {
        assert_eq!(side.to_string().parse::<Side>(), Ok(side));
        assert_eq!(side.letter().to_string().parse::<Side>(), Ok(side));
        assert_eq!(side.name().to_uppercase().parse::<Side>(), Ok(side));
    }
    assert_eq!(" n ".parse::<Side>(), Ok(Side::North));
    for bad in ["", "E", "Southh", "SN"] {
        let e = bad.parse::<Side>().unwrap_err().to_string();
        assert_eq!(
            e,
            format!("'{bad}' is not a side: S, N, South or North (in any case)")
        );
    }
}

#[test]
fn a_json_record_takes_its_rules_as_an_object_or_as_tag_text() {
    // Tester 72: the web API takes both, JSON records took only the object.
    let text =
        GameRecord::parse_json("{\"rules\":\"capture=empty pie=on\",\"turns\":[\"3-6\"]}").unwrap();
    let object = GameRecord::parse_json(
        "{\"rules\":{\"capture\":\"empty\",\"pie\":true},\"turns\":[\"3-6\"]}",
    )
    .unwrap();
    assert_eq!(text, object);
    assert!(text.rules.pie && text.rules.capture == kalah_core::CaptureRule::Empty);
    // Keys and values in any case, as the text form and the web API read them (tester 79).
    let upper = GameRecord::parse_json(
        "{\"rules\":{\"CAPTURE\":\"Empty\",\"Pie\":true},\"turns\":[\"3-6\"]}",
    )
    .unwrap();
    assert_eq!(upper, object);
    for (bad, says) in [
        ("\"capture=maybe\"", "'maybe' is not a value of capture"),
        ("{\"captur\":\"empty\"}", "unknown rules key 'captur'"),
        (
            "{\"pie\":1}",
            "key 'pie' must be a string or true/false, not a number",
        ),
        ("{\"capture\":true}", "'true' is not a value of capture"),
        (
            "5",
            "or the text of a Rules tag (\"capture=empty pie=on\"), not the number 5",
        ),
    ] {
        let e = GameRecord::parse_json(&format!("{{\"rules\":{bad}}}")).unwrap_err();
        assert!(
            matches!(&e, RecordError::Json(m) if m.contains("field 'rules'") && m.contains(says)),
            "{bad}: {e}"
        );
    }
    // null is the rules left out, as in the web API.
    assert_eq!(
        GameRecord::parse_json("{\"rules\":null}"),
        GameRecord::parse_json("{}")
    );
}

#[test]
fn a_long_message_keeps_its_start_and_end() {
    use kalah_core::error::{bounded, MESSAGE_MAX};
    let short = "x".repeat(MESSAGE_MAX);
    assert_eq!(bounded(&short), short.as_str());
    let long = format!("a{}z", "é".repeat(5000));
    let b = bounded(&long);
    assert!(b.chars().count() < MESSAGE_MAX, "{}", b.len());
    assert!(b.starts_with('a') && b.ends_with('z'), "{b}");
    assert!(b.contains("(4042 characters left out)"), "{b}");
    // Words are cut between them where a space is near (tester 107: `…oved by hand?)`).
    let words = format!("{}the end.", "a long message of words, ".repeat(60));
    let b = bounded(&words);
    assert!(b.ends_with("the end."), "{b}");
    let (head, rest) = b.split_once("… (").unwrap();
    let (left_out, tail) = rest.split_once(" characters left out) …").unwrap();
    for part in [head, tail] {
        assert!(
            part.split(' ')
                .all(|w| ["a", "long", "message", "of", "words,", "the", "end."].contains(&w)),
            "a word cut: {part:?}"
        );
    }
    let left_out: usize = left_out.parse().unwrap();
    assert_eq!(
        head.chars().count() + left_out + tail.chars().count(),
        words.chars().count(),
        "{b}"
    );
}

/// An extra turn written as a turn of its own is told to be joined to its turn, and one
/// followed by the other side's turn says who moves again (tester 104: both were told to write
/// `3-`, which a following turn then refuses). A last turn that stops is still told `3-`.
#[test]
fn an_extra_turn_written_apart_is_told_to_be_joined() {
    let said = |text: &str| GameRecord::parse_text(text).unwrap_err().to_string();
    for text in [
        "1. S 3\n2. S 6\n3. N 1\n",
        "3 6 1",
        "1. S 3 2. 6",
        "3\n\n# a note\n6",
    ] {
        assert_eq!(
            said(text),
            "turn 1: '3' stops, but action 1 (house 3) earns an extra turn, which is part of \
             the same turn: join the extra turn to it ('3-6'; a turn's actions are joined by '-')",
            "{text:?}"
        );
    }
    // The second turn of several actions, in the middle of a game.
    assert_eq!(
        said("1. S 3-6 2. N 4 3. S 2 4. S 1-3"),
        "turn 3: '2' stops, but action 1 (house 2) earns an extra turn, which is part of \
         the same turn: join the extra turn to it ('2-1-3'; a turn's actions are joined by '-')"
    );
    assert_eq!(
        said("1. S 3\n2. N 1\n"),
        "turn 1: '3' stops, but action 1 (house 3) earns an extra turn, so South moves again, \
         but turn 2 is labelled N"
    );
    for text in ["1. S 3\n", "3"] {
        assert_eq!(
            said(text),
            "turn 1: '3' stops, but action 1 (house 3) earns an extra turn; write '3-' if the \
             turn is unfinished"
        );
    }
    // The JSON form says the same.
    let e = GameRecord::parse_json(r#"{"turns": ["3", "6"]}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("join the extra turn to it ('3-6';"), "{e}");
}
