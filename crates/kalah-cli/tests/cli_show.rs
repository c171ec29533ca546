//! `kalah show`: the board in text, the JSON form, actions, rule flags.

use assert_cmd::Command;
use serde_json::Value;

fn kalah() -> Command {
    let mut c = Command::cargo_bin("kalah").expect("the kalah binary");
    c.env_remove("NO_COLOR");
    c
}

fn stdout_of(args: &[&str]) -> String {
    let out = kalah().args(args).output().expect("runs");
    assert!(
        out.status.success(),
        "kalah {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

fn json_of(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    let text = stdout_of(&a);
    assert_eq!(text.lines().count(), 1, "one line of JSON: {text}");
    serde_json::from_str(&text).expect("valid JSON")
}

/// The numbers between the `|` of a board line.
fn cells(line: &str) -> Vec<u32> {
    line.split('|')
        .filter_map(|t| t.trim().parse().ok())
        .collect()
}

#[test]
fn start_position_as_text() {
    let text = stdout_of(&["show"]);
    assert!(
        text.contains("Position: 4,4,4,4,4,4,0,4,4,4,4,4,4,0 S"),
        "{text}"
    );
    assert!(text.contains("South to move; legal: 1 2 3 4 5 6"), "{text}");
    assert!(!text.contains('\x1b'), "no colour when piped");
    let lines: Vec<&str> = text.lines().collect();
    let top = lines
        .iter()
        .position(|l| l.starts_with('+'))
        .expect("board");
    // North's house numbers run 6..1 from left to right, above its row.
    let nums: Vec<u32> = lines[top - 1]
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect();
    assert_eq!(nums, vec![6, 5, 4, 3, 2, 1]);
    assert_eq!(cells(lines[top + 1]), vec![4; 6]);
    assert_eq!(cells(lines[top + 3]), vec![4; 6]);
}

#[test]
fn board_puts_each_bin_in_its_place() {
    // Bin order: South 1..6, South store, North 1..6, North store.
    let text = stdout_of(&[
        "show",
        "1,2,3,4,5,6,7,8,9,10,11,12,13,14 N",
        "--color",
        "never",
    ]);
    let lines: Vec<&str> = text.lines().collect();
    let top = lines
        .iter()
        .position(|l| l.starts_with('+'))
        .expect("board");
    assert_eq!(
        cells(lines[top + 1]),
        vec![13, 12, 11, 10, 9, 8],
        "North row, houses 6..1"
    );
    assert_eq!(
        cells(lines[top + 3]),
        vec![1, 2, 3, 4, 5, 6],
        "South row, houses 1..6"
    );
    let stores: Vec<u32> = lines[top + 2]
        .split(['|', '+', '-'])
        .filter_map(|t| t.trim().parse().ok())
        .collect();
    assert_eq!(stores, vec![14, 7], "North's store left, South's right");
    assert!(text.contains("North to move; legal: 1 2 3 4 5 6"), "{text}");
}

#[test]
fn json_of_the_start() {
    let j = json_of(&["show"]);
    let keys: Vec<&String> = j.as_object().unwrap().keys().collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        vec!["legal", "over", "position", "score", "to_move"]
    );
    assert_eq!(j["position"], "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S");
    assert_eq!(j["to_move"], "S");
    assert_eq!(j["over"], false);
    assert_eq!(j["score"], Value::Null);
    assert_eq!(j["legal"], serde_json::json!([1, 2, 3, 4, 5, 6]));
}

#[test]
fn json_after_moves() {
    // 3: four seeds end in the store (extra turn); 6: five seeds, one to the store and four to
    // North 1..4; North 1: five seeds to North 2..6.
    let j = json_of(&["show", "--moves", "3,6,1"]);
    assert_eq!(j["position"], "4,4,0,5,5,0,2,0,6,6,6,5,5,0 S");
    assert_eq!(j["to_move"], "S");
    assert_eq!(j["legal"], serde_json::json!([1, 2, 4, 5]));
    // Spaces, and commas followed by spaces, separate items too; a dash joins the actions of
    // one turn (South's 3-6, then North's 1: a turn of its own).
    assert_eq!(json_of(&["show", "--moves", "3 6 1"]), j);
    assert_eq!(json_of(&["show", "--moves", "3, 6, 1"]), j);
    assert_eq!(json_of(&["show", "--moves", "3-6 1"]), j);
    assert_eq!(json_of(&["show", "--moves", "3-6,1"]), j);
}

/// Runs a command that must fail: its one line of stderr and its exit code.
fn failure(args: &[&str]) -> (String, i32) {
    let out = kalah().args(args).output().expect("runs");
    assert!(!out.status.success(), "kalah {args:?} succeeded");
    assert!(out.stdout.is_empty(), "stdout: {:?}", out.stdout);
    let err = String::from_utf8(out.stderr).expect("utf-8");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    (
        err.trim_end().to_string(),
        out.status.code().expect("an exit code"),
    )
}

/// A house number above 255 in a turn is told as house 9 is, the first problem first (tester
/// 65: `1-99999` skipped the check of action 1).
#[test]
fn a_large_house_in_a_turn_is_told_as_a_small_one() {
    for small in ["3-9", "1-9", "9-9", "3-6-9", "3-9-", "3-1-9"] {
        let large = small.replace('9', "99999");
        let (got, code) = failure(&["show", "--moves", &large]);
        let (want, want_code) = failure(&["show", "--moves", small]);
        assert_eq!(got.replace("99999", "9"), want, "{large}");
        assert_eq!(code, want_code);
    }
}

/// `--moves` reads a turn as `kalah play`, game records and the web API do: a dash joins the
/// actions of one turn, and every action of it but the last must earn an extra turn.
#[test]
fn moves_read_a_dash_as_joining_one_turn() {
    // From the Kalah(6,4) start: South's house 3 (4 seeds) ends in the store, an extra turn;
    // house 6 (5 seeds) puts one in the store and four in North's houses 1..4: North to move.
    let j = json_of(&["show", "--moves", "3-6"]);
    assert_eq!(j["position"], "4,4,0,5,5,0,2,5,5,5,5,4,4,0 N");
    assert_eq!(j["to_move"], "N");
    for same in ["3,6", "3 6", "3, 6", "3-,6", "3- 6"] {
        assert_eq!(json_of(&["show", "--moves", same]), j, "{same}");
    }
    let text = stdout_of(&["show", "--moves", "3-6"]);
    assert!(
        text.contains("  1. South 3: sows 4 seeds, the last into the store: extra turn\n  2. South 6: sows 5 seeds\n"),
        "{text}"
    );
}

#[test]
fn an_open_turn_leaves_the_same_side_to_move() {
    // 3- : the turn goes on after house 3's extra turn: South is still to move.
    let j = json_of(&["show", "--moves", "3-"]);
    assert_eq!(j["position"], "4,4,0,5,5,5,1,4,4,4,4,4,4,0 S");
    assert_eq!(j["to_move"], "S");
    assert_eq!(j["legal"], serde_json::json!([1, 2, 4, 5, 6]));
    assert_eq!(json_of(&["show", "--moves", "3"]), j);
    let text = stdout_of(&["show", "--moves", "3-"]);
    assert!(
        text.contains("Position: 4,4,0,5,5,5,1,4,4,4,4,4,4,0 S\nSouth to move; legal: 1 2 4 5 6\n"),
        "{text}"
    );
    // Kalah(3,3): South's 1 (3 seeds: houses 2, 3 and the store) earns an extra turn; then 2
    // (4 seeds: house 3, the store, North's 1 and 2) ends in North's house 2. So 1-2 is a whole
    // turn, and 1-2- claims an extra turn that 2 does not earn.
    let j = json_of(&["show", "--houses", "3", "--seeds", "3", "--moves", "1-2"]);
    assert_eq!(j["position"], "0,0,5,2,4,4,3,0 N");
    let (line, code) = failure(&["show", "--houses", "3", "--seeds", "3", "--moves", "1-2-"]);
    assert_eq!(
        line,
        "kalah: error: --moves item 1: '1-2-' ends with '-', but action 2 (house 2) earns no \
         extra turn"
    );
    assert_eq!(code, 1);
}

#[test]
fn a_turn_of_the_wrong_shape_is_refused_naming_its_item() {
    let cases: [(&[&str], &str); 14] = [
        // House 6 (5 seeds) ends in North's house 4: the turn is over before North's 1. After
        // South's 2 (no extra turn), North's 3-6 is the same turn on North's side.
        (
            &["--moves", "3-6-1"],
            "kalah: error: --moves item 1: '3-6-1' goes on after action 2 (house 6), which ends \
             the turn",
        ),
        (
            &["--moves", "2,3-6-1"],
            "kalah: error: --moves item 2: '3-6-1' goes on after action 2 (house 6), which ends \
             the turn",
        ),
        // From the start, house 6 (4 seeds) reaches North's house 3, not the store.
        (
            &["--moves", "6-1"],
            "kalah: error: --moves item 1: '6-1' goes on after action 1 (house 6), which ends \
             the turn",
        ),
        (
            &["--moves", "3 6-"],
            "kalah: error: --moves item 2: '6-' ends with '-', but action 1 (house 6) earns no \
             extra turn",
        ),
        // South's house 3 holds the last seed of South's row: into the store, and the game ends.
        (
            &["0,0,1,0,2,2,2,0 S", "--moves", "3-"],
            "kalah: error: --moves item 1: '3-' ends with '-', but action 1 (house 3) ends the \
             game",
        ),
        // An illegal action within a turn: the core wording, and where it was to be played.
        (
            &["--moves", "3-3"],
            "kalah: error: --moves item 1: '3-3': action 2 (house 3) cannot be played: house 3 \
             is empty (in 4,4,0,5,5,5,1,4,4,4,4,4,4,0 S)",
        ),
        (
            &["--moves", "3-x"],
            "kalah: error: --moves item 1 ('3-x'): 'x' is not a move: expected a house number \
             (digits, no leading zero) or 'swap'",
        ),
        // Plain digits only, as play, records and the web API read moves.
        (
            &["--moves", "+3"],
            "kalah: error: --moves item 1 ('+3'): '+3' is not a move: expected a house number \
             (digits, no leading zero) or 'swap'",
        ),
        // Plain digits too large for any board: no house, with the board's count as for 13
        // (and as play and the web API say), after the items before it are played.
        (
            &["--moves", "13"],
            "kalah: error: --moves item 1 ('13') cannot be played in 4,4,4,4,4,4,0,4,4,4,4,4,4,0 \
             S: there is no house 13: houses are numbered 1 to 6",
        ),
        (
            &["--moves", "256"],
            "kalah: error: --moves item 1 ('256') cannot be played in 4,4,4,4,4,4,0,4,4,4,4,4,4,0 \
             S: there is no house 256: houses are numbered 1 to 6",
        ),
        (
            &["--moves", "1 99999999999999999999"],
            "kalah: error: --moves item 2 ('99999999999999999999') cannot be played in \
             0,5,5,5,5,4,0,4,4,4,4,4,4,0 N: there is no house 99999999999999999999: houses are \
             numbered 1 to 6",
        ),
        (
            &["--moves", "3-256"],
            "kalah: error: --moves item 1: '3-256': action 2 (house 256) cannot be played: there is \
             no house 256: houses are numbered 1 to 6 (in 4,4,0,5,5,5,1,4,4,4,4,4,4,0 S)",
        ),
        (
            &["--moves", "03"],
            "kalah: error: --moves item 1 ('03'): '03' is not a move: expected a house number \
             (digits, no leading zero) or 'swap'",
        ),
        // A dash with nothing before it (a space inside a turn, or two dashes).
        (
            &["--moves", "3 -6"],
            "kalah: error: --moves item 2 ('-6'): an empty action; join the actions of one turn \
             with single dashes or commas and no spaces, e.g. 3-6 (a trailing dash, as in 3-, says the turn \
             goes on)",
        ),
    ];
    for (args, want) in cases {
        let mut a = vec!["show"];
        a.extend_from_slice(args);
        let (line, code) = failure(&a);
        assert_eq!(line, want, "{a:?}");
        assert_eq!(code, 1, "{a:?}");
    }
    for bad in ["3--6", "3 - 6", "-", "3--"] {
        let (line, code) = failure(&["show", "--moves", bad]);
        assert!(line.contains("an empty action"), "{bad}: {line}");
        assert_eq!(code, 1, "{bad}");
    }
    // A single action keeps its wording; an empty item is still one.
    let (line, _) = failure(&["show", "--moves", "3,3"]);
    assert_eq!(
        line,
        "kalah: error: --moves item 2 ('3') cannot be played in 4,4,0,5,5,5,1,4,4,4,4,4,4,0 S: \
         house 3 is empty"
    );
    let (line, _) = failure(&["show", "--moves", "3-6,"]);
    assert_eq!(
        line,
        "kalah: error: --moves item 2: an empty item is not an action (a house number or 'swap')"
    );
}

#[test]
fn help_says_what_moves_accepts() {
    let text = stdout_of(&["show", "--help"]);
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("items separated by commas and/or spaces"),
        "{text}"
    );
    assert!(flat.contains("joined by `-`"), "{text}");
    assert!(flat.contains("trailing `-` (3-)"), "{text}");
    assert!(!flat.contains("commas or dashes"), "{text}");
}

#[test]
fn json_of_a_finished_game() {
    // South's row is empty: the game is over and North's 6 seeds are swept into its store.
    let j = json_of(&["show", "0,0,0,0,0,0,20,1,1,1,1,1,1,22 N"]);
    // The side letter is kept (the side that would have moved): see kalah-core's `Display`.
    assert_eq!(j["position"], "0,0,0,0,0,0,20,0,0,0,0,0,0,28 N");
    assert_eq!(j["to_move"], Value::Null);
    assert_eq!(j["over"], true);
    assert_eq!(j["score"], serde_json::json!([20, 28]));
    assert_eq!(j["legal"], serde_json::json!([]));
    let text = stdout_of(&["show", "0,0,0,0,0,0,20,1,1,1,1,1,1,22 N"]);
    assert!(
        text.contains("Game over. South 20, North 28: North wins by 8"),
        "{text}"
    );
}

#[test]
fn capture_rule_flag_changes_the_result() {
    // South sows its house 1 (one seed) into empty house 2, facing North's empty house 2.
    let pos = "1,0,2,0,3,0,3,3 S";
    let std = json_of(&["show", pos, "--moves", "1"]);
    assert_eq!(std["position"], "0,1,2,0,3,0,3,3 N");
    let empty = json_of(&["show", pos, "--moves", "1", "--capture", "empty"]);
    assert_eq!(empty["position"], "0,0,2,1,3,0,3,3 N");
    let text = stdout_of(&["show", pos, "--moves", "1", "--capture", "empty"]);
    assert!(text.contains("captures the lone seed"), "{text}");
}

#[test]
fn text_describes_captures_and_extra_turns() {
    let text = stdout_of(&["show", "1,0,4,4,4,4,0,4,4,4,4,4,4,0 S", "--moves", "1"]);
    assert!(
        text.contains("captures 5 seeds (4 from North's house 5 and the landing seed)"),
        "{text}"
    );
    let text = stdout_of(&["show", "--moves", "3"]);
    assert!(text.contains("extra turn"), "{text}");
}

/// Regression: a sowing into the store that ends the game was reported as earning an extra turn
/// ("... the last into the store: extra turn. Game over").
#[test]
fn last_sowing_into_the_store_earns_no_extra_turn() {
    let text = stdout_of(&["show", "0,0,0,0,0,1,0,4,4,4,4,4,4,0 S", "--moves", "6"]);
    let line = text.lines().next().unwrap();
    assert!(
        line.contains("the last into the store. Game over"),
        "{line}"
    );
    assert!(!line.contains("extra turn"), "{line}");
}

#[test]
fn board_size_and_layout_flags() {
    let j = json_of(&["show", "--houses", "3", "--seeds", "5"]);
    assert_eq!(j["position"], "5,5,5,0,5,5,5,0 S");
    let j = json_of(&["show", "--layout", "4,4,5,4,3,4"]);
    assert_eq!(j["position"], "4,4,5,4,3,4,0,4,4,5,4,3,4,0 S");
    let j = json_of(&["show", "--layout", "4,4,5,4,3,4", "--mirrored"]);
    assert_eq!(j["position"], "4,4,5,4,3,4,0,4,3,4,5,4,4,0 S");
}

#[test]
fn pie_rule_swap_is_listed_last_in_legal() {
    // South sows house 2 of Kalah(3,3): the last seed lands in North's house 1; North may swap.
    let j = json_of(&[
        "show", "--houses", "3", "--seeds", "3", "--pie", "--moves", "2",
    ]);
    assert_eq!(j["position"], "3,0,4,1,4,3,3,0 N pie");
    assert_eq!(j["legal"], serde_json::json!([1, 2, 3, "swap"]));
    let j = json_of(&[
        "show", "--houses", "3", "--seeds", "3", "--pie", "--moves", "2,swap",
    ]);
    assert_eq!(j["position"], "3,0,4,1,4,3,3,0 N");
    assert_eq!(j["legal"], serde_json::json!([1, 2, 3]));
    // The swap is a turn of its own: nothing may follow it within the turn.
    let (line, _) = failure(&[
        "show", "--houses", "3", "--seeds", "3", "--pie", "--moves", "2 swap-1",
    ]);
    assert_eq!(
        line,
        "kalah: error: --moves item 2: 'swap-1' goes on after action 1 (swap), which ends the turn"
    );
    // Without the pie rule there is no swap.
    let j = json_of(&["show", "--houses", "3", "--seeds", "3", "--moves", "2"]);
    assert_eq!(j["legal"], serde_json::json!([1, 2, 3]));
}

#[test]
fn manchester_rule_first_move_has_no_extra_turn() {
    let j = json_of(&["show", "--no-first-move-extra-turn", "--moves", "3"]);
    assert_eq!(j["to_move"], "N");
    let j = json_of(&["show", "--moves", "3"]);
    assert_eq!(j["to_move"], "S");
    let text = stdout_of(&["show", "--no-first-move-extra-turn", "--moves", "3"]);
    assert!(
        text.contains("the first sowing earns no extra turn (Manchester rule)"),
        "{text}"
    );
}

#[test]
fn colour_on_request_only() {
    let text = stdout_of(&["show", "--color", "always"]);
    assert!(text.contains("\x1b["));
    let text = stdout_of(&["show", "--color", "never"]);
    assert!(!text.contains('\x1b'));
}
