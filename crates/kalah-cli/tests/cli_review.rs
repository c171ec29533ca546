//! `kalah review` end to end: a hand-checked game, JSON, the annotated record, limits and bad
//! input.

use assert_cmd::Command;
use kalah_core::GameRecord;
use serde_json::Value;

mod common;

/// A game of Kalah(2,1) from 1,1,0,1,1,0 S, checked by hand:
/// - turn 1, South 1: South's best is 2-1 (house 2 into the store, then house 1 into the empty
///   house 2, capturing North's house 1: 3 to 1, +2); 1 instead joins house 2 and hands over.
///   After it (0,2,0,1,1,0 N) whatever North does, South's only house, 2, empties South's row
///   with 1 seed in the store and 3 for North: -2. So 1 is worth -2, 4 lost, a win turned into
///   a loss.
/// - turn 2, North 1 (into its house 2): +2 for North, as good as 2-1.
/// - turn 3, South 2: forced, -2.
const GAME: &str = r#"[Rules "capture=standard end=row-empty leftovers=owner majority-end=off pie=off first-move-extra-turn=on"]
[Start "1,1,0,1,1,0 S"]
[South "alice"]
[North "bob"]
[Result "1-3"]

# before the game
1. S 1
2. N 1
# review: a comment of bob's
3. S 2
"#;

fn kalah(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_kalah"));
    c.args(args).arg("--no-egdb");
    c
}

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn a_hand_checked_game_is_reviewed_turn_by_turn() {
    let dir = tempfile::tempdir().unwrap();
    let game = write(&dir, "g.txt", GAME);
    let out = kalah(&["review", &game]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows,
        vec![
            vec!["1", "S", "1", "-2", "2-1", "(+2)", "4", "win", "->", "loss"],
            vec!["2", "N", "1", "+2", "="],
            vec!["3", "S", "2", "-2", "="],
        ],
        "{text}"
    );
    assert!(
        text.contains("game: South (alice) against North (bob), 3 turns"),
        "{text}"
    );
    assert!(
        text.contains("South (alice): 2 turns, 1 mistake, 4 seeds lost; the result changed at turn 1 (win -> loss)"),
        "{text}"
    );
    assert!(text.contains("North (bob): 1 turn, 0 mistakes\n"), "{text}");
    assert!(
        text.contains("with perfect play from the start: South wins by 2"),
        "{text}"
    );
    assert!(text.contains("the game: South 1, North 3"), "{text}");
}

#[test]
fn the_review_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let game = write(&dir, "g.txt", GAME);
    let out = kalah(&["review", &game, "--json"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["start"], "1,1,0,1,1,0 S");
    assert_eq!(v["south"], "alice");
    assert_eq!(v["complete"], true);
    assert!(v["rules"].as_str().unwrap().starts_with("capture=standard"));
    let t = &v["turns"];
    assert_eq!(t.as_array().unwrap().len(), 3);
    assert_eq!(t[0]["turn"], 1);
    assert_eq!(t[0]["side"], "S");
    assert_eq!(t[0]["player"], "S");
    assert_eq!(t[0]["position"], "1,1,0,1,1,0 S");
    assert_eq!(t[0]["played"], "1");
    assert_eq!(t[0]["value"], -2);
    assert_eq!(t[0]["best"], "2-1");
    assert_eq!(t[0]["best_value"], 2);
    assert_eq!(t[0]["loss"], 4);
    assert_eq!(t[0]["outcome_change"], serde_json::json!(["win", "loss"]));
    assert_eq!(t[1]["position"], "0,2,0,1,1,0 N");
    assert_eq!(t[1]["value"], 2);
    assert_eq!(t[1]["loss"], 0);
    assert!(t[1].get("outcome_change").is_none());
    assert_eq!(t[2]["loss"], 0);
    assert_eq!(v["players"]["south"]["mistakes"], 1);
    assert_eq!(v["players"]["south"]["loss"], 4);
    assert_eq!(v["players"]["north"]["mistakes"], 0);
}

#[test]
fn the_annotated_record_reads_back_with_its_own_comments_and_the_review() {
    let dir = tempfile::tempdir().unwrap();
    let game = write(&dir, "g.txt", GAME);
    let out_path = dir.path().join("a.txt");
    let out = kalah(&["review", &game, "--annotate", out_path.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&out_path).unwrap();
    let annotated = GameRecord::parse(&text).unwrap();
    let original = GameRecord::parse(GAME).unwrap();
    assert_eq!(annotated.moves(), original.moves());
    assert_eq!(annotated.south, "alice");
    let comments: Vec<(usize, &str)> = annotated
        .comments
        .iter()
        .map(|(k, c)| (*k, c.as_str()))
        .collect();
    assert_eq!(
        comments,
        vec![
            (0, " before the game"),
            (
                0,
                " [kalah review] values with perfect play for the side that played each turn; from the start, South wins by 2"
            ),
            (1, " [kalah review] S 1 -2; best 2-1 (+2), 4 lost, win -> loss"),
            (2, " review: a comment of bob's"),
            (2, " [kalah review] N 1 +2 ="),
            (3, " [kalah review] S 2 -2 ="),
        ],
        "{text}"
    );
    // Reviewing the annotated record into itself replaces the review's comments, not doubles them.
    let a = out_path.to_str().unwrap();
    let out = kalah(&["review", a, "--annotate", a]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read_to_string(&out_path).unwrap(), text);
}

#[test]
fn positions_not_solved_within_the_limit_give_bounds_and_exit_code_1() {
    // Kalah(5,4): the opening positions need far more than 2 000 nodes.
    let dir = tempfile::tempdir().unwrap();
    let game = write(
        &dir,
        "g.txt",
        "[Start \"4,4,4,4,4,0,4,4,4,4,4,0 S\"]\n\n1. S 1\n2. N 1\n3. S 3\n",
    );
    let out = kalah(&["review", &game, "--nodes", "2000", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("positions were not solved within --nodes 2000"),
        "{err}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let first = &v["turns"][0];
    assert_eq!(first["best_value"], Value::Null);
    assert_eq!(first["loss"], Value::Null);
    let b = first["best_value_bounds"].as_array().unwrap();
    assert!(b[0].as_i64().unwrap() < b[1].as_i64().unwrap(), "{first}");
}

#[test]
fn bad_input_is_refused_without_touching_files() {
    let dir = tempfile::tempdir().unwrap();
    // No such file.
    let missing = dir.path().join("none.txt");
    let out = kalah(&["review", missing.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot read"), "{err}");
    // A turn that does not play.
    let game = write(&dir, "bad.txt", "[Start \"1,1,0,1,1,0 S\"]\n\n1. S 3\n");
    let out = kalah(&["review", &game]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("there is no house 3"), "{err}");
    // An annotated record that cannot be written: the record itself is left as it was.
    let game = write(&dir, "g.txt", GAME);
    let out = kalah(&["review", &game, "--annotate", dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success(), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("it is a directory"), "{err}");
    let nowhere = dir.path().join("no-such-dir").join("a.txt");
    let out = kalah(&["review", &game, "--annotate", nowhere.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("there is no directory"), "{err}");
    assert_eq!(std::fs::read_to_string(&game).unwrap(), GAME);
}

#[test]
fn after_a_pie_rule_swap_each_turn_is_put_to_the_player_who_played_it() {
    // Kalah(3,3) with the pie rule: ann opens 2, ben swaps and plays South from then on, so
    // ann, now North, plays turn 3 and ben turn 4.
    let dir = tempfile::tempdir().unwrap();
    let game = write(
        &dir,
        "pie.txt",
        "[Rules \"pie=on\"]\n[Start \"3,3,3,0,3,3,3,0 S opening\"]\n[South \"ann\"]\n\
         [North \"ben\"]\n\n1. S 2\n2. N swap\n3. N 1\n4. S 1\n",
    );
    let out = kalah(&["review", &game, "--json"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let who: Vec<(&str, &str)> = v["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["side"].as_str().unwrap(), t["player"].as_str().unwrap()))
        .collect();
    assert_eq!(who, vec![("S", "S"), ("N", "N"), ("N", "S"), ("S", "N")]);
    // The swap's value is North's best there (kalah analyze --pie --houses 3 --seeds 3
    // --moves 2 --turns: swap +2, the other turns -2 and -8).
    assert_eq!(v["turns"][1]["played"], "swap");
    assert_eq!(v["turns"][1]["value"], 2);
    assert_eq!(v["turns"][1]["loss"], 0);
    let out = kalah(&["review", &game]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "after the swap at turn 2, the player who began as North (ben) plays South, and the \
             one who began as South (ann) plays North"
        ),
        "{text}"
    );
}

#[test]
fn a_record_without_turns_has_nothing_to_review() {
    let dir = tempfile::tempdir().unwrap();
    let game = write(&dir, "g.txt", "[Start \"1,1,0,1,1,0 S\"]\n");
    let out = kalah(&["review", &game]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("nothing to review"), "{text}");
    // Nothing is searched (tester 116: the start of Kalah(6,4) was solved, without end; here
    // a node limit would make that search fail).
    let game = write(
        &dir,
        "g64.txt",
        "[Start \"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\"]\n",
    );
    let out = kalah(&["review", &game, "--nodes", "1000", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["nodes"], 0, "{v}");
    assert_eq!(v["turns"].as_array().map(Vec::len), Some(0), "{v}");
}

#[test]
fn annotate_replaces_only_a_record_of_the_same_game() {
    let dir = tempfile::tempdir().unwrap();
    let game = write(&dir, "g.txt", GAME);
    // Notes, and another game's record, are not replaced, and the review does not start.
    let notes = write(&dir, "notes.txt", "my precious notes\n");
    let other = write(&dir, "other.txt", "[Start \"1,1,0,1,1,0 S\"]\n\n1. S 2-1\n");
    for (target, why) in [
        (&notes, "does not hold a game record"),
        (&other, "holds another game"),
        (&"/dev/null".to_string(), "not a regular file"),
    ] {
        let out = kalah(&["review", &game, "--annotate", target])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(why), "{target}: {err}");
        assert!(out.stdout.is_empty(), "{out:?}");
    }
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        "my precious notes\n"
    );
    assert!(std::fs::read_to_string(&other)
        .unwrap()
        .contains("1. S 2-1"));
    // An empty file is fine.
    let empty = write(&dir, "empty.txt", "");
    let out = kalah(&["review", &game, "--annotate", &empty])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(std::fs::read_to_string(&empty)
        .unwrap()
        .contains("[kalah review]"));
}

#[test]
fn a_json_record_is_annotated_in_the_json_form() {
    let dir = tempfile::tempdir().unwrap();
    let json = GameRecord::parse(GAME).unwrap().to_json();
    let game = write(&dir, "g.rec", &json);
    let out = kalah(&["review", &game, "--annotate", &game])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&game).unwrap();
    let v: Value = serde_json::from_str(&text).expect("still the JSON form");
    assert!(
        v["comments"].to_string().contains("[kalah review] S 1 -2"),
        "{text}"
    );
    // A new file named .json gets the JSON form too.
    let text_game = write(&dir, "t.txt", GAME);
    let out_json = dir.path().join("out.json");
    let out = kalah(&[
        "review",
        &text_game,
        "--annotate",
        out_json.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert!(out.status.success(), "{out:?}");
    let _: Value = serde_json::from_str(&std::fs::read_to_string(&out_json).unwrap()).unwrap();
}

#[test]
fn a_stopped_review_leaves_the_annotated_file_as_it_was() {
    // Kalah(6,4) without databases: the review of even one turn takes seconds.
    let dir = tempfile::tempdir().unwrap();
    let game = write(
        &dir,
        "g.txt",
        "[Start \"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\"]\n\n1. S 3-6\n2. N 1\n",
    );
    let before = std::fs::read_to_string(&game).unwrap();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_kalah"))
        .args([
            "review",
            &game,
            "--annotate",
            &game,
            "--no-egdb",
            "--threads",
            "1",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out = common::interrupt(child, std::time::Duration::from_millis(800));
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("was not written: the review was stopped"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&game).unwrap(), before);
}
