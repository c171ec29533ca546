//! Every parser of kalah-core against junk: arbitrary text, and valid notations damaged by
//! random edits (characters deleted, inserted, doubled; counts made huge). A parser must answer
//! `Ok` or `Err` and never panic; what it accepts must print to a text that parses back to the
//! same value, and an accepted record must replay without panicking.

use kalah_core::{
    CaptureRule, EndRule, GameRecord, LeftoverRule, Move, Position, Rules, Setup, Start, Turn,
};
use proptest::prelude::*;

/// Valid texts of every kind the parsers read, to be damaged.
const SEEDS: &[&str] = &[
    "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S",
    "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S opening",
    "0,0,0,0,0,0,24,0,0,0,0,0,0,24",
    "1,0,3,0,0,2,20,0,0,5,1,0,0,16 N",
    "3,3,3,0,3,3,3,0 N pie", "3,3,3,3,0,3,3,3,3,0 S first-turn",
    "3-6",
    "1-2-3-4-5-6",
    "swap",
    "6",
    "3-",
    "capture=empty end=mover-blocked leftovers=emptier majority-end=on pie=on",
    "capture=standard,first-move-extra-turn=off,pie=off",
    "4,4,5,4,3,4",
    "[Rules \"capture=empty pie=on\"]\n[Start \"3,3,3,3,0,3,3,3,3,0 S opening\"]\n[South \"a\"]\n[North \"b # c\"] # x\n[Event \"e\"]\n\n1. S 2-1\n2. N swap\n3. N 2-\n",
    "[Start \"3,3,3,3,0,3,3,3,3,0 S\"]\n[Result \"*\"]\n\n1. S 4\nN 1-\n",
    "{\"rules\":{\"capture\":\"empty\"},\"start\":\"3,3,3,3,0,3,3,3,3,0 S\",\"south\":\"x\",\"north\":\"y\",\"turns\":[\"4\",\"1-\"],\"result\":null}",
];

/// Characters that parsers treat specially, plus some that they should reject cleanly.
const SPICE: &[char] = &[
    '0',
    '1',
    '9',
    ',',
    '-',
    ' ',
    '\t',
    '\n',
    '\r',
    'S',
    'N',
    's',
    '=',
    '"',
    '[',
    ']',
    '{',
    '}',
    ':',
    '#',
    '.',
    '+',
    'é',
    '٣',
    '\u{feff}',
    '\u{0}',
    '\u{7f}',
    '\u{1F600}',
    'x',
];

#[derive(Debug, Clone)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, char),
    Double(usize, usize),
    Huge(usize),
}

fn edit_strategy() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 1usize..4).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<usize>(), prop::sample::select(SPICE)).prop_map(|(a, c)| Edit::Insert(a, c)),
        (any::<usize>(), 1usize..12).prop_map(|(a, n)| Edit::Double(a, n)),
        any::<usize>().prop_map(Edit::Huge),
    ]
}

/// Applies the edits by character (never splitting one), so that the result is valid UTF-8.
fn damaged(seed: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = seed.chars().collect();
    for edit in edits {
        let len = chars.len();
        match *edit {
            Edit::Delete(at, n) if len > 0 => {
                let at = at % len;
                chars.drain(at..(at + n).min(len));
            }
            Edit::Insert(at, c) => chars.insert(at % (len + 1), c),
            Edit::Double(at, n) if len > 0 => {
                let at = at % len;
                let piece: Vec<char> = chars[at..(at + n).min(len)].to_vec();
                chars.splice(at..at, piece);
            }
            Edit::Huge(at) => {
                let digits = ["256", "999999999999999999999999", "-1", "1e3", "0x10"];
                let pos = at % (len + 1);
                for c in digits[at % digits.len()].chars().rev() {
                    chars.insert(pos, c);
                }
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

fn junk_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,60}",
        "[0-9, SN\\-=a-z\"\\[\\]{}:]{0,80}",
        (
            prop::sample::select(SEEDS),
            prop::collection::vec(edit_strategy(), 1..6)
        )
            .prop_map(|(seed, edits)| damaged(seed, &edits)),
    ]
}

/// Feeds one text to every parser. Accepted values must print and parse back.
fn check_all(text: &str) -> Result<(), TestCaseError> {
    if let Ok(pos) = text.parse::<Position>() {
        let printed = pos.to_string();
        let back: Position = printed.parse().expect("a printed position parses");
        prop_assert_eq!(back, pos, "position {:?} printed {:?}", text, printed);
        prop_assert_eq!(Position::from_setup(&pos.to_setup()).unwrap(), pos);
        let _ = pos.legal_moves(&Rules::default());
    }
    if let Ok(mv) = text.parse::<Move>() {
        prop_assert_eq!(mv.to_string().parse::<Move>().unwrap(), mv);
    }
    if let Ok(turn) = text.parse::<Turn>() {
        prop_assert_eq!(turn.to_string().parse::<Turn>().unwrap(), turn);
    }
    if let Ok((turn, _end)) = Turn::parse_written(text) {
        prop_assert!(!turn.moves().is_empty());
    }
    if let Ok(rules) = text.parse::<Rules>() {
        let printed = rules.to_string();
        prop_assert_eq!(printed.parse::<Rules>().unwrap(), rules, "rules {:?}", text);
        // A parsed rule set makes a start position without panicking.
        let start = Position::start(&Start::uniform(4, 3).unwrap(), &rules);
        prop_assert!(rules.allows_phase(start.phase()));
    }
    let _ = text.parse::<CaptureRule>();
    let _ = text.parse::<EndRule>();
    let _ = text.parse::<LeftoverRule>();
    if let Ok(counts) = Start::parse_counts(text) {
        prop_assert!(!counts.is_empty());
        if let Ok(start) = Start::layout(&counts, false) {
            prop_assert_eq!(start.south_layout(), &counts[..]);
        }
    }
    if let Ok(rec) = GameRecord::parse(text) {
        let pos = rec.position();
        prop_assert_eq!(rec.positions().len(), rec.moves().len() + 1);
        prop_assert_eq!(*rec.positions().last().unwrap(), pos);
        let _ = rec.result();
        let text_form = rec.to_text();
        let again = GameRecord::parse_text(&text_form);
        prop_assert!(
            again.is_ok(),
            "record {:?} wrote {:?}: {:?}",
            text,
            text_form,
            again
        );
        prop_assert_eq!(again.unwrap(), rec.clone());
        let json_form = rec.to_json();
        prop_assert_eq!(GameRecord::parse_json(&json_form).unwrap(), rec);
    }
    // The serde forms read the same texts as JSON strings.
    let quoted = serde_json::to_string(text).unwrap();
    let _ = serde_json::from_str::<Position>(&quoted);
    let _ = serde_json::from_str::<Move>(&quoted);
    let _ = serde_json::from_str::<Turn>(&quoted);
    let _ = serde_json::from_str::<Rules>(text);
    let _ = serde_json::from_str::<Start>(text);
    let _ = serde_json::from_str::<Setup>(text);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 3000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// No parser panics on junk, and what one accepts round-trips.
    #[test]
    fn parsers_survive_junk(text in junk_strategy()) {
        check_all(&text)?;
    }

    /// A setup with any pit counts, side and phase is accepted or refused, never a panic; an
    /// accepted one is a position whose notation parses back to it.
    #[test]
    fn setups_survive_junk(pits in prop::collection::vec(any::<u8>(), 0..30),
                           side in 0u8..3, phase in 0u8..3) {
        let to_move = match side { 0 => None, 1 => Some(kalah_core::Side::South), _ => Some(kalah_core::Side::North) };
        let phase = match phase { 0 => kalah_core::Phase::Normal, 1 => kalah_core::Phase::Opening, _ => kalah_core::Phase::PieChoice };
        let setup = Setup { pits, to_move, phase };
        if let Ok(pos) = Position::from_setup(&setup) {
            prop_assert_eq!(pos.to_string().parse::<Position>().unwrap(), pos);
            prop_assert_eq!(pos.total_seeds(), setup.pits.iter().map(|&x| u32::from(x)).sum::<u32>());
        }
    }
}

/// The damage function itself: it must be able to break a valid text (else the property above
/// would only ever see valid input) and keep it whole when asked to do nothing.
#[test]
fn damage_breaks_texts() {
    let seed = SEEDS[0];
    assert_eq!(damaged(seed, &[]), seed);
    let broken = damaged(seed, &[Edit::Delete(0, 3)]);
    assert!(broken.parse::<Position>().is_err(), "{broken:?}");
    let huge = damaged(seed, &[Edit::Huge(0)]);
    assert!(huge.starts_with("256"), "{huge:?}");
    assert!(huge.parse::<Position>().is_err());
}

/// Every seed text is valid for at least one parser, so that the damaged texts start from
/// something each parser accepts.
#[test]
fn every_seed_is_valid() {
    for seed in SEEDS {
        let accepted = seed.parse::<Position>().is_ok()
            || seed.parse::<Turn>().is_ok()
            || Turn::parse_written(seed).is_ok()
            || seed.parse::<Rules>().is_ok()
            || Start::parse_counts(seed).is_ok()
            || GameRecord::parse(seed).is_ok();
        assert!(accepted, "no parser reads the seed {seed:?}");
    }
    for seed in SEEDS.iter().filter(|s| s.starts_with(['[', '{'])) {
        let rec = GameRecord::parse(seed).unwrap_or_else(|e| panic!("{seed:?}: {e}"));
        assert!(!rec.moves().is_empty());
    }
}

/// Hand-picked damage that random edits rarely reach: control characters inside tag values,
/// tag names holding brackets, slicing inside multi-byte characters, huge numbers.
#[test]
fn tricky_texts() {
    let texts = [
        "[Event \"a\tb\"]\n\n1. S 3-6\n",
        "[Event \"a\u{7}b\"]\n\n1. S 3-6\n",
        "[Ev[ent \"a\"]\n\n1. S 3-6\n",
        "[Event\t\"a\"]\n\n1. S 3-6\n",
        "[Resul \"*\"]\n\n1. S 3-6\n",
        "{\"rules\":{},\"start\":\"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\",\"tags\":[[\"Event\",\"a\\tb\"]]}",
        "{\"rules\":{},\"start\":\"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\",\"tags\":[[\"South\",\"x\"]]}",
        "{\"rules\":{},\"start\":\"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\",\"tags\":[[\"E vent\",\"x\"]]}",
        "{\"rules\":{},\"start\":\"4,4,4,4,4,4,0,4,4,4,4,4,4,0 S\",\"tags\":[[\"Event\",\"x\"]]}",
        "é,é,4,4,4,4,0,4,4,4,4,4,4,0 S",
        "4,4,4,4,4,4,0,4,4,4,4,4,4,0 é",
        "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S ٣",
        "4,4,4,4,4,4,0,4,4,4,4,4,4,999999999999999999999 S",
        "3-٣",
        "٣",
        "1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1",
    ];
    for text in texts {
        if let Err(e) = check_all(text) {
            panic!("{text:?}: {e}");
        }
    }
    // A tag read from either form comes back from the other.
    let json = texts[8];
    let rec = GameRecord::parse(json).unwrap();
    assert_eq!(rec.tags, vec![("Event".to_string(), "x".to_string())]);
    assert!(rec.to_text().contains("[Event \"x\"]"));
    let e = GameRecord::parse(texts[6]).unwrap_err().to_string();
    assert!(
        e.contains(
            "field 'tags', item 1: 'South' is the standard tag South, given as the field \"south\""
        ),
        "{e}"
    );
    assert!(GameRecord::parse(texts[7]).is_err(), "a name of two words");
    let e = GameRecord::parse(texts[2]).unwrap_err().to_string();
    assert!(e.contains("tag name Ev[ent holds '['"), "{e}");
    // A tab in a value reads as the space the writer would write.
    let rec = GameRecord::parse(texts[0]).unwrap();
    assert_eq!(rec.tags, vec![("Event".to_string(), "a b".to_string())]);
}
