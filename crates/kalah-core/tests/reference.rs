//! The rules checked against the shared reference data (see tests/data/SOURCE.md).

use kalah_core::{CaptureRule, EndRule, LeftoverRule, Move, Position, Rules, Side, Start, Status};
use serde_json::Value;

fn rules_of(v: &Value) -> Rules {
    Rules {
        capture: v["capture"].as_str().unwrap().parse().unwrap(),
        end: v["end"].as_str().unwrap().parse().unwrap(),
        leftovers: v["leftovers"].as_str().unwrap().parse().unwrap(),
        ..Rules::default()
    }
}

#[test]
fn every_rule_case_under_every_rule_set() {
    let text = include_str!("data/rule-cases.jsonl");
    let mut n = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap();
        let id = case["id"].as_str().unwrap();
        let rules = rules_of(&case["rules"]);
        let mut pos: Position = case["position"].as_str().unwrap().parse().unwrap();
        for mv in case["moves"].as_array().unwrap() {
            let h = mv.as_u64().unwrap() as u8;
            pos.play(&rules, Move::Sow(h))
                .unwrap_or_else(|e| panic!("{id} {rules}: move {h}: {e}"));
        }
        let expect = &case["expect"];
        // The reference writes a finished game without a side letter; ours names the side that
        // would have moved (the view of the value), after the same counts.
        let text = pos.to_string();
        let text = match text.rsplit_once(' ') {
            Some((counts, _)) if pos.is_over() => counts.to_string(),
            _ => text,
        };
        assert_eq!(
            text,
            expect["position"].as_str().unwrap(),
            "{id} under {rules}"
        );
        let to_move =
            expect["to_move"]
                .as_str()
                .map(|s| if s == "S" { Side::South } else { Side::North });
        assert_eq!(pos.to_move(), to_move, "{id} under {rules}");
        assert_eq!(pos.is_over(), expect["over"].as_bool().unwrap(), "{id}");
        match &expect["score"] {
            Value::Null => assert!(matches!(pos.status(&rules), Status::ToMove(_)), "{id}"),
            s => {
                let want = [s[0].as_u64().unwrap() as u8, s[1].as_u64().unwrap() as u8];
                assert_eq!(pos.status(&rules), Status::Over(want), "{id} under {rules}");
            }
        }
        n += 1;
    }
    assert_eq!(n, 60);
}

#[test]
fn openspiel_games_replay_exactly() {
    let text = include_str!("data/openspiel-kalah-6-4-games.jsonl");
    let rules = Rules {
        capture: CaptureRule::Standard,
        end: EndRule::RowEmpty,
        leftovers: LeftoverRule::Owner,
        ..Rules::default()
    };
    let mut games = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let g: Value = serde_json::from_str(line).unwrap();
        let id = g["game"].as_u64().unwrap();
        let mut pos = Position::start(&Start::uniform(6, 4).unwrap(), &rules);
        let moves = g["moves"].as_array().unwrap();
        let positions = g["positions"].as_array().unwrap();
        assert_eq!(moves.len(), positions.len());
        for (i, (mv, after)) in moves.iter().zip(positions).enumerate() {
            let player = if mv["player"].as_u64().unwrap() == 0 {
                Side::South
            } else {
                Side::North
            };
            assert_eq!(
                pos.to_move(),
                Some(player),
                "game {id} ply {i}: side to move"
            );
            let house = mv["house"].as_u64().unwrap() as u8;
            pos.play(&rules, Move::Sow(house)).unwrap();
            let pits: Vec<u8> = after["pits"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap() as u8)
                .collect();
            match after["to_move"].as_u64() {
                Some(p) => {
                    assert_eq!(pos.pits(), &pits[..], "game {id} ply {i}");
                    let side = if p == 0 { Side::South } else { Side::North };
                    assert_eq!(pos.to_move(), Some(side), "game {id} ply {i}");
                }
                None => {
                    // OpenSpiel does not sweep: the stores must match, and the houses must hold
                    // what our sweep moved.
                    assert!(pos.is_over(), "game {id} ply {i}: game should be over");
                    let m = 6;
                    let south_left: u8 = pits[..m].iter().sum();
                    let north_left: u8 = pits[m + 1..2 * m + 1].iter().sum();
                    assert_eq!(pos.store(Side::South), pits[m] + south_left, "game {id}");
                    assert_eq!(
                        pos.store(Side::North),
                        pits[2 * m + 1] + north_left,
                        "game {id}"
                    );
                }
            }
        }
        let scores = &g["final"]["scores"];
        let want = [
            scores[0].as_u64().unwrap() as u8,
            scores[1].as_u64().unwrap() as u8,
        ];
        assert_eq!(
            pos.status(&rules),
            Status::Over(want),
            "game {id} final score"
        );
        games += 1;
    }
    assert_eq!(games, 200);
}
