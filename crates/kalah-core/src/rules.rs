//! The rule variants of Kalah and the starting layout of a board.
//!
//! Every field of [`Rules`] defaults to the standard rule of Champion's Kalah as played in the
//! literature (Irving, Donkers & Uiterwijk, "Solving Kalah", ICGA Journal 23(3), 2000): standard
//! capture, the game ends as soon as either row is empty, the leftovers go to their owner, no
//! majority end, no pie rule, and every store landing earns an extra turn.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{ParseLayoutError, RulesError};
use crate::position::Phase;
use crate::{MAX_HOUSES, MAX_SEEDS};

/// What happens when the last seed of a sowing lands in an empty house of the mover's own row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaptureRule {
    /// The capture happens only if the opposite house holds seeds; then the landing seed and the
    /// opposite seeds go to the mover's store.
    #[default]
    Standard,
    /// The landing seed is captured even when the opposite house is empty (the rule under which
    /// Irving et al. 2000 solved Kalah(6,4) = +10 and Kalah(6,5) = +12).
    Empty,
}

/// When the game ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EndRule {
    /// The game ends as soon as a move leaves either row empty.
    #[default]
    RowEmpty,
    /// The game goes on until the player to move has no seeds in his row.
    MoverBlocked,
}

/// Who gets the seeds still in the houses when the game ends (the **sweep**).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LeftoverRule {
    /// Each player's remaining seeds go to that player's store.
    #[default]
    Owner,
    /// The player whose row is empty takes all remaining seeds. When no row is empty (a game
    /// stopped by the majority end) there is no emptier, and each player keeps his own, as under
    /// [`LeftoverRule::Owner`].
    Emptier,
    /// The remaining seeds are removed and count for nobody.
    Nobody,
}

/// A complete rule set: every variant people actually play. `Rules::default()` is standard Kalah.
///
/// `Rules` says nothing about the board size or the starting seeds: those belong to the position
/// (see [`Start`] for starting layouts).
///
/// Serde: written as an object of its keys (`{"capture": "standard", ..., "pie": false, ...}`);
/// read as [`Rules::from_json_object`] reads an object (keys and values in any case, `"on"` and
/// `true` alike, keys left out standard), or from the text of a `Rules` tag
/// (`"capture=empty pie=on"`), or `null` (the standard rules): the same forms the JSON game
/// record and the web API take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct Rules {
    /// Capture rule.
    pub capture: CaptureRule,
    /// End rule.
    pub end: EndRule,
    /// Leftover (sweep) rule.
    pub leftovers: LeftoverRule,
    /// Majority end: the game stops as soon as one store holds more than half of all seeds; the
    /// leftovers then follow [`Rules::leftovers`].
    pub majority_end: bool,
    /// Pie rule: North's first action may be `swap`, exchanging the players' sides.
    pub pie: bool,
    /// Whether South's very first sowing can earn an extra turn. `false` is the Manchester
    /// tournament rule.
    pub first_move_extra_turn: bool,
}

impl Rules {
    /// The keys of the text form (`capture=empty pie=on`, see the [`FromStr`] impl), in the
    /// order [`Display`](std::fmt::Display) writes them.
    pub const KEYS: [&'static str; 6] = [
        "capture",
        "end",
        "leftovers",
        "majority-end",
        "pie",
        "first-move-extra-turn",
    ];

    /// Standard Kalah: standard capture, row-empty end, leftovers to the owner, no majority end,
    /// no pie rule, extra turn on the first move.
    pub const STANDARD: Rules = Rules {
        capture: CaptureRule::Standard,
        end: EndRule::RowEmpty,
        leftovers: LeftoverRule::Owner,
        majority_end: false,
        pie: false,
        first_move_extra_turn: true,
    };

    /// Whether the outcome of a position depends on the stores, not only on the houses and the
    /// side to move. True for the majority end; such positions cannot be keyed on houses alone.
    pub fn outcome_depends_on_stores(&self) -> bool {
        self.majority_end
    }

    /// Whether the opening phase of the game matters (the pie rule or the Manchester rule).
    pub fn has_opening_rules(&self) -> bool {
        self.pie || !self.first_move_extra_turn
    }

    /// Whether a position in `phase` belongs to games under these rules: the normal phase
    /// always; [`Phase::PieChoice`] (tag `pie`) only under the pie rule; [`Phase::Opening`]
    /// under the pie rule or the Manchester rule; [`Phase::FirstTurn`] only under the pie rule
    /// with the first-move extra turn (under the Manchester rule South's first sowing never
    /// earns an extra turn, so no first turn goes on, and without the pie rule it would not
    /// matter). Front ends refuse a position (or a record's start) whose phase tag its rules do
    /// not allow; [`Rules::phase_needs`] says what is missing.
    pub fn allows_phase(&self, phase: Phase) -> bool {
        self.phase_needs(phase).is_none()
    }

    /// What these rules lack for a position in `phase` (see [`Rules::allows_phase`]), or
    /// `None` if they allow it.
    pub fn phase_needs(&self, phase: Phase) -> Option<PhaseNeeds> {
        match phase {
            Phase::PieChoice if !self.pie => Some(PhaseNeeds::Pie),
            Phase::Opening if !self.has_opening_rules() => Some(PhaseNeeds::PieOrManchester),
            Phase::FirstTurn if !(self.pie && self.first_move_extra_turn) => {
                Some(PhaseNeeds::PieWithFirstMoveExtraTurn)
            }
            _ => None,
        }
    }
}

/// The opening rules a position's phase tag needs (from [`Rules::phase_needs`]), for front ends
/// to name in their own syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PhaseNeeds {
    /// The pie rule (tag `pie`).
    Pie,
    /// The pie rule or the Manchester rule (tag `opening`).
    PieOrManchester,
    /// The pie rule with the first-move extra turn, not the Manchester rule (tag
    /// `first-turn`).
    PieWithFirstMoveExtraTurn,
}

impl PhaseNeeds {
    /// What to change, in the rules' text form (as [`Rules`] is written and read: `pie=on`),
    /// e.g. `add pie=on or first-move-extra-turn=off`.
    pub fn in_rules_text(self) -> &'static str {
        match self {
            PhaseNeeds::Pie => "add pie=on",
            PhaseNeeds::PieOrManchester => "add pie=on or first-move-extra-turn=off",
            PhaseNeeds::PieWithFirstMoveExtraTurn => {
                "use pie=on with first-move-extra-turn=on (under the Manchester rule South's \
                 first sowing earns no extra turn, so no first turn goes on)"
            }
        }
    }
}

/// Reads an object of the rule keys as [`Rules::from_json_object`] does, the text of a `Rules`
/// tag, or `null` (see [`Rules`]).
impl<'de> Deserialize<'de> for Rules {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Rules, D::Error> {
        use serde::de::{self, Error as _};
        struct Either;
        impl<'de> de::Visitor<'de> for Either {
            type Value = Rules;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "an object ({\"capture\": \"empty\"}) or the text of a Rules tag \
                     (\"capture=empty pie=on\")",
                )
            }
            /// `null`: left out, the standard rules.
            fn visit_unit<E: de::Error>(self) -> Result<Rules, E> {
                Ok(Rules::default())
            }
            fn visit_str<E: de::Error>(self, t: &str) -> Result<Rules, E> {
                t.parse::<Rules>().map_err(E::custom)
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Rules, A::Error> {
                // Read as the web API reads the object, keys and values in any case (tester 79:
                // `{"PIE": true}` was an unknown field in records only); a key sent twice comes
                // twice.
                let mut entries: Vec<(String, serde_json::Value)> = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Rules::from_json_object(entries.iter().map(|(k, v)| (k.as_str(), v)))
                    .map_err(A::Error::custom)
            }
        }
        d.deserialize_any(Either)
    }
}

impl Default for Rules {
    /// [`Rules::STANDARD`].
    fn default() -> Self {
        Rules::STANDARD
    }
}

impl fmt::Display for CaptureRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CaptureRule::Standard => "standard",
            CaptureRule::Empty => "empty",
        })
    }
}

impl fmt::Display for EndRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EndRule::RowEmpty => "row-empty",
            EndRule::MoverBlocked => "mover-blocked",
        })
    }
}

impl fmt::Display for LeftoverRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LeftoverRule::Owner => "owner",
            LeftoverRule::Emptier => "emptier",
            LeftoverRule::Nobody => "nobody",
        })
    }
}

impl FromStr for CaptureRule {
    type Err = RulesError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "standard" => Ok(CaptureRule::Standard),
            "empty" => Ok(CaptureRule::Empty),
            _ => Err(RulesError::BadValue {
                key: "capture".into(),
                value: s.into(),
                expected: "standard or empty",
            }),
        }
    }
}

impl FromStr for EndRule {
    type Err = RulesError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "row-empty" => Ok(EndRule::RowEmpty),
            "mover-blocked" => Ok(EndRule::MoverBlocked),
            _ => Err(RulesError::BadValue {
                key: "end".into(),
                value: s.into(),
                expected: "row-empty or mover-blocked",
            }),
        }
    }
}

impl FromStr for LeftoverRule {
    type Err = RulesError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "owner" => Ok(LeftoverRule::Owner),
            "emptier" => Ok(LeftoverRule::Emptier),
            "nobody" => Ok(LeftoverRule::Nobody),
            _ => Err(RulesError::BadValue {
                key: "leftovers".into(),
                value: s.into(),
                expected: "owner, emptier or nobody",
            }),
        }
    }
}

fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

fn parse_on_off(key: &str, v: &str) -> Result<bool, RulesError> {
    match v.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" => Ok(true),
        "off" | "false" | "no" => Ok(false),
        _ => Err(RulesError::BadValue {
            key: key.into(),
            value: v.into(),
            expected: "on or off (or true/false, yes/no)",
        }),
    }
}

/// `capture=standard end=row-empty leftovers=owner majority-end=off pie=off
/// first-move-extra-turn=on`: every key, in this order. Parsing accepts any subset in any order,
/// separated by spaces or commas, and `true`/`yes` and `false`/`no` for `on` and `off`; missing
/// keys take the standard rule; a key given twice is an error ([`RulesError::RepeatedKey`]).
/// Keys and values are written in lower case and read in any case (`Capture=EMPTY` is
/// `capture=empty`, as levels, side letters and `swap` are); an error quotes them as given.
impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "capture={} end={} leftovers={} majority-end={} pie={} first-move-extra-turn={}",
            self.capture,
            self.end,
            self.leftovers,
            on_off(self.majority_end),
            on_off(self.pie),
            on_off(self.first_move_extra_turn)
        )
    }
}

/// The text form (see [`Rules`]'s `Display`): `key=value` items separated by spaces or commas,
/// each key at most once, keys and values in any case; spaces around `=` are allowed
/// (`pie = on`).
///
/// # Errors
/// [`RulesError::NotKeyValue`] for an item without `=`, [`RulesError::UnknownKey`],
/// [`RulesError::BadValue`], and [`RulesError::RepeatedKey`] for a key given twice (even with
/// the same value).
impl FromStr for Rules {
    type Err = RulesError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut seen = [false; Rules::KEYS.len()];
        let mut rules = Rules::default();
        // Spaces around '=' are allowed (`pie = on`, tester 96): a word that starts with '='
        // joins an item without one, and a word without '=' joins an item that ends with one
        // (`capture= pie=on` stays two items: '' is not a value of capture).
        let mut items: Vec<String> = Vec::new();
        for word in s
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
        {
            match items.last_mut() {
                Some(last)
                    if (word.starts_with('=') && !last.contains('='))
                        || (last.ends_with('=') && !word.contains('=')) =>
                {
                    last.push_str(word)
                }
                _ => items.push(word.to_string()),
            }
        }
        for item in &items {
            let (key, value) = item
                .split_once('=')
                .ok_or_else(|| RulesError::NotKeyValue(item.clone()))?;
            rules.set(key, value, &mut seen)?;
        }
        Ok(rules)
    }
}

impl Rules {
    /// Reads the rules' JSON object form, `{"capture": "empty", "pie": true}`, given as its
    /// entries in the order sent (a key sent twice comes twice): the form of the JSON game
    /// record's `rules` and of the web API's. Each entry is read as the text form's `key=value`
    /// (see [`Rules`]'s `Display`), so both forms take the same keys and values, in any case,
    /// and give the same messages: `true`/`false` are the text form's (a boolean given to a key
    /// that takes names is quoted as sent, `'true' is not a value of capture`), and `null`
    /// counts as absent.
    ///
    /// # Errors
    /// [`RulesError::UnknownKey`] (whatever its value's type), [`RulesError::BadType`] for a
    /// value that is neither a string nor a boolean, [`RulesError::BadValue`] and
    /// [`RulesError::RepeatedKey`].
    pub fn from_json_object<'a>(
        entries: impl IntoIterator<Item = (&'a str, &'a serde_json::Value)>,
    ) -> Result<Rules, RulesError> {
        use serde_json::Value;
        let mut seen = [false; Rules::KEYS.len()];
        let mut rules = Rules::default();
        for (key, v) in entries {
            let value = match v {
                Value::Null => continue,
                Value::Bool(b) => b.to_string(),
                Value::String(s) => s.clone(),
                // An unknown key is named before its value's type.
                _ if !Rules::KEYS.iter().any(|k| k.eq_ignore_ascii_case(key)) => {
                    return Err(RulesError::UnknownKey(key.into()))
                }
                other => {
                    let found = match other {
                        Value::Number(_) => "a number",
                        Value::Array(_) => "an array",
                        _ => "an object",
                    };
                    let key = key.into();
                    return Err(RulesError::BadType { key, found });
                }
            };
            rules.set(key, &value, &mut seen)?;
        }
        Ok(rules)
    }

    /// Sets the rule `key` (any case) to `value` (any case), as one item `key=value` of the
    /// text form; `seen` marks the keys set so far.
    fn set(
        &mut self,
        key: &str,
        value: &str,
        seen: &mut [bool; Rules::KEYS.len()],
    ) -> Result<(), RulesError> {
        let k = Rules::KEYS
            .iter()
            .position(|&known| known.eq_ignore_ascii_case(key))
            .ok_or_else(|| RulesError::UnknownKey(key.into()))?;
        if std::mem::replace(&mut seen[k], true) {
            return Err(RulesError::RepeatedKey(key.into()));
        }
        let known = Rules::KEYS[k];
        match known {
            "capture" => self.capture = value.parse()?,
            "end" => self.end = value.parse()?,
            "leftovers" => self.leftovers = value.parse()?,
            "majority-end" => self.majority_end = parse_on_off(known, value)?,
            "pie" => self.pie = parse_on_off(known, value)?,
            _ => self.first_move_extra_turn = parse_on_off(known, value)?,
        }
        Ok(())
    }
}

/// A starting layout: the number of houses a side and the seeds in each house.
///
/// `layout[h-1]` is the count of South's house `h` (sowing order, 1 = farthest from the store).
/// North's house `h` gets `layout[h-1]` too (each player sees the same row from his own side),
/// unless `mirrored`, in which case North's house `h` gets `layout[m-h]`, so that facing houses
/// hold the same count. Both stores start empty.
///
/// Serialized as `{"layout": [4, 4, 5, 4, 3, 4], "mirrored": false}`; deserializing checks the
/// layout as [`Start::layout`] does (a layout of 0 or more than 12 houses, no seed or more than
/// 255 seeds on the board is an error naming the problem).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "StartFields")]
pub struct Start {
    layout: Vec<u8>,
    mirrored: bool,
}

/// The serialized fields of a [`Start`], checked by [`Start::layout`] when deserialized.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StartFields {
    layout: Vec<u8>,
    #[serde(default)]
    mirrored: bool,
}

impl TryFrom<StartFields> for Start {
    type Error = RulesError;

    fn try_from(f: StartFields) -> Result<Start, RulesError> {
        Start::layout(&f.layout, f.mirrored)
    }
}

impl Start {
    /// Kalah(m,n): `houses` houses a side with `seeds` seeds each.
    ///
    /// # Errors
    /// [`RulesError::Houses`] unless 1 ≤ houses ≤ 12; [`RulesError::NoSeeds`] if `seeds` is 0;
    /// [`RulesError::TooManySeeds`] if the board would hold more than 255 seeds.
    pub fn uniform(houses: usize, seeds: u32) -> Result<Start, RulesError> {
        if !(1..=MAX_HOUSES).contains(&houses) {
            return Err(RulesError::Houses(houses));
        }
        let total = 2 * houses as u64 * seeds as u64;
        if total > MAX_SEEDS as u64 {
            return Err(RulesError::TooManySeeds(total));
        }
        Start::layout(&vec![seeds as u8; houses], false)
    }

    /// Reads the seed counts of a layout written as text, `4,4,5,4,3,4` (houses 1..m in sowing
    /// order, comma-separated, spaces around an item allowed), for [`Start::layout`]. Only the
    /// items are checked here: the number of houses and the seed total are
    /// [`Start::layout`]'s.
    ///
    /// # Errors
    /// [`ParseLayoutError::BadCount`] naming the first item that is not a whole number 0..=255
    /// (an empty item, as in `4,,4`, included).
    pub fn parse_counts(text: &str) -> Result<Vec<u8>, ParseLayoutError> {
        text.split(',')
            .enumerate()
            .map(|(i, t)| {
                let t = t.trim();
                let bad = || ParseLayoutError::BadCount {
                    item: i + 1,
                    text: t.to_string(),
                };
                // Digits only, as in a position (`u8::from_str` would take `+4`).
                if !t.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(bad());
                }
                t.parse::<u8>().map_err(|_| bad())
            })
            .collect()
    }

    /// A custom layout (e.g. the FairKalah start `4,4,5,4,3,4`), see the type's documentation.
    ///
    /// # Errors
    /// [`RulesError::Houses`] for a layout of 0 or more than 12 houses; [`RulesError::NoSeeds`]
    /// if it holds no seed; [`RulesError::TooManySeeds`] above 255 seeds on the whole board.
    pub fn layout(layout: &[u8], mirrored: bool) -> Result<Start, RulesError> {
        if !(1..=MAX_HOUSES).contains(&layout.len()) {
            return Err(RulesError::Houses(layout.len()));
        }
        let total: u64 = 2 * layout.iter().map(|&s| s as u64).sum::<u64>();
        if total == 0 {
            return Err(RulesError::NoSeeds);
        }
        if total > MAX_SEEDS as u64 {
            return Err(RulesError::TooManySeeds(total));
        }
        Ok(Start {
            layout: layout.to_vec(),
            mirrored,
        })
    }

    /// Houses a side.
    pub fn houses(&self) -> usize {
        self.layout.len()
    }

    /// South's houses 1..m in sowing order.
    pub fn south_layout(&self) -> &[u8] {
        &self.layout
    }

    /// Whether North's row is the mirror image of South's (facing houses equal).
    pub fn mirrored(&self) -> bool {
        self.mirrored
    }

    /// The pit counts in bin order (South houses 1..m, South store, North houses 1..m, North
    /// store).
    pub fn pits(&self) -> Vec<u8> {
        let m = self.layout.len();
        let mut pits = Vec::with_capacity(2 * m + 2);
        pits.extend_from_slice(&self.layout);
        pits.push(0);
        for h in 0..m {
            pits.push(if self.mirrored {
                self.layout[m - 1 - h]
            } else {
                self.layout[h]
            });
        }
        pits.push(0);
        pits
    }
}

impl Default for Start {
    /// Kalah(6,4).
    fn default() -> Self {
        Start {
            layout: vec![4; 6],
            mirrored: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deserialized_start_is_checked_as_start_layout() {
        let ok: Start =
            serde_json::from_str(r#"{"layout":[4,4,5,4,3,4],"mirrored":true}"#).unwrap();
        assert_eq!(ok, Start::layout(&[4, 4, 5, 4, 3, 4], true).unwrap());
        let plain: Start = serde_json::from_str(r#"{"layout":[3,3,3]}"#).unwrap();
        assert_eq!(plain, Start::uniform(3, 3).unwrap());
        // A round trip keeps it.
        let text = serde_json::to_string(&ok).unwrap();
        assert_eq!(serde_json::from_str::<Start>(&text).unwrap(), ok);
        // Library tester: these were accepted and panicked later (13 houses: a slice past the
        // board; 800 seeds: an index past the solver's tables).
        for (json, want) in [
            (
                r#"{"layout":[1,1,1,1,1,1,1,1,1,1,1,1,1],"mirrored":false}"#,
                "13",
            ),
            (r#"{"layout":[200,200],"mirrored":false}"#, "800"),
            (r#"{"layout":[],"mirrored":false}"#, "0"),
            (r#"{"layout":[0,0],"mirrored":false}"#, "no seed"),
        ] {
            let e = serde_json::from_str::<Start>(json).unwrap_err().to_string();
            assert!(e.contains(want), "{json}: {e}");
        }
        assert!(serde_json::from_str::<Start>(r#"{"layout":[4],"mirored":true}"#).is_err());
    }

    /// Spaces around '=' are allowed (tester 96: `pie = on` was "not of the form key=value");
    /// an item without '=' is still refused.
    #[test]
    fn spaces_around_the_equals_sign_are_allowed() {
        let want = Rules {
            pie: true,
            capture: CaptureRule::Empty,
            ..Rules::STANDARD
        };
        for text in [
            "pie = on capture = empty",
            "pie =on, capture= empty",
            " pie\t=\ton\ncapture =empty ",
        ] {
            assert_eq!(text.parse::<Rules>(), Ok(want), "{text:?}");
        }
        assert_eq!(
            "pie on".parse::<Rules>(),
            Err(RulesError::NotKeyValue("pie".into()))
        );
        assert!(matches!(
            "pie = = on".parse::<Rules>(),
            Err(RulesError::BadValue { .. })
        ));
        // A key without a value takes no item that has a key of its own (tester 97: `capture=
        // pie=on` said "'pie=on' is not a value of capture").
        for text in ["capture= pie=on", "capture = pie=on", "capture=, pie=on"] {
            let e = text.parse::<Rules>().unwrap_err().to_string();
            assert!(e.starts_with("'' is not a value of capture"), "{text}: {e}");
        }
        assert_eq!(
            "= on".parse::<Rules>(),
            Err(RulesError::UnknownKey(String::new()))
        );
    }

    #[test]
    fn a_rules_key_given_twice_is_refused() {
        for (text, key) in [
            ("capture=empty capture=standard", "capture"),
            // The same value twice too: the text is not what its writer meant.
            ("pie=on,pie=on", "pie"),
            ("end=row-empty leftovers=nobody end=mover-blocked", "end"),
            ("majority-end=on majority-end=off", "majority-end"),
            ("leftovers=owner leftovers=owner", "leftovers"),
            (
                "first-move-extra-turn=off pie=on first-move-extra-turn=on",
                "first-move-extra-turn",
            ),
        ] {
            let e = text.parse::<Rules>().unwrap_err();
            assert_eq!(e, RulesError::RepeatedKey(key.into()), "{text}");
            assert_eq!(
                e.to_string(),
                format!("rules key '{key}' is given more than once"),
                "{text}"
            );
        }
        // Each key once, in any order, is fine; the first bad item is reported.
        assert_eq!(
            "pie=on capture=empty".parse::<Rules>().unwrap(),
            Rules {
                pie: true,
                capture: CaptureRule::Empty,
                ..Rules::STANDARD
            }
        );
        assert!(matches!(
            "capture=x capture=empty".parse::<Rules>(),
            Err(RulesError::BadValue { .. })
        ));
        assert_eq!(
            "colour=red colour=red".parse::<Rules>(),
            Err(RulesError::UnknownKey("colour".into()))
        );
        // The text form of every rule set gives each key once and reads back.
        let all = Rules {
            capture: CaptureRule::Empty,
            end: EndRule::MoverBlocked,
            leftovers: LeftoverRule::Nobody,
            majority_end: true,
            pie: true,
            first_move_extra_turn: false,
        };
        assert_eq!(all.to_string().parse::<Rules>(), Ok(all));
    }
}
