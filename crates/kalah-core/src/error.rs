//! Typed errors of the rules crate. Each message names the problem and, for parse errors, where.

use thiserror::Error;

use crate::moves::Move;

/// A rule set, a starting layout or a board size that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RulesError {
    /// The number of houses a side is outside 1..=12.
    #[error("a side must have 1 to 12 houses, not {0}")]
    Houses(usize),
    /// The board holds no seed at all.
    #[error("the board holds no seeds")]
    NoSeeds,
    /// The board would hold more than 255 seeds.
    #[error("the board would hold {0} seeds; at most 255 are supported")]
    TooManySeeds(u64),
    /// A rules item is not of the form `key=value`.
    #[error("rules item '{shown}' is not of the form key=value", shown = crate::error::clipped(.0))]
    NotKeyValue(String),
    /// An unknown rules key.
    #[error("unknown rules key '{shown}' (known: capture, end, leftovers, majority-end, pie, first-move-extra-turn)", shown = crate::error::clipped(.0))]
    UnknownKey(String),
    /// A rules key given more than once (`capture=empty capture=standard`): which one is meant
    /// is unclear, so the text is refused rather than the last one taken.
    #[error("rules key '{shown}' is given more than once", shown = crate::error::clipped(.0))]
    RepeatedKey(String),
    /// A value of the rules' JSON object form that is neither a string nor a boolean
    /// ([`Rules::from_json_object`](crate::Rules::from_json_object)).
    #[error("key '{shown}' must be a string or true/false, not {found}", shown = crate::error::clipped(.key))]
    BadType {
        /// The key, as given.
        key: String,
        /// The JSON type given: `a number`, `an array`, `an object`.
        found: &'static str,
    },
    /// A rules value that the key does not take.
    #[error("'{shown}' is not a value of {key}: expected {expected}", shown = crate::error::clipped(.value))]
    BadValue {
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// What the key takes.
        expected: &'static str,
    },
}

/// A position that cannot be set up: the pit counts break the board's limits.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SetupError {
    /// The number of pits is not 2m+2 for some m in 1..=12 (4, 6, …, 26).
    #[error(
        "a position has 2m+2 pit counts for 1 to 12 houses a side (4, 6, ..., 26 numbers), not {0}"
    )]
    PitCount(usize),
    /// More than 255 seeds in all.
    #[error("the position holds {0} seeds; at most 255 are supported")]
    TooManySeeds(u32),
    /// A game marked over still has seeds in its houses.
    #[error("a position with seeds in its houses needs a side to move (S, N, South or North) after the pit counts; only a finished game, every house empty, has none")]
    OverWithSeeds,
    /// The opening phase given does not fit the position (e.g. `opening` with North to move).
    #[error("phase tag '{phase}' needs {needs}")]
    Phase {
        /// The phase tag.
        phase: &'static str,
        /// What it needs.
        needs: &'static str,
    },
}

/// A layout written as text (`4,4,5,4,3,4`, see [`crate::Start::parse_counts`]) that does not
/// parse.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseLayoutError {
    /// An item is not a whole number 0..=255; `item` is its 1-based place in the list.
    #[error("item {item}: {} is not a seed count (0 to 255){}", item_text(.text), spaced_counts(.text))]
    BadCount {
        /// 1-based place of the item.
        item: usize,
        /// The item, without the spaces around it (empty for an empty item).
        text: String,
    },
}

/// `text` as an error message quotes it: whole up to 40 characters, else its first 32
/// characters, `…` and its length (`11111111111111111111111111111111… (60000 characters)`), so
/// that a message stays short whatever the input.
pub fn clipped(text: &str) -> std::borrow::Cow<'_, str> {
    const WHOLE: usize = 40;
    const SHOWN: usize = 32;
    match text.char_indices().nth(WHOLE) {
        None => std::borrow::Cow::Borrowed(text),
        Some(_) => {
            let cut = text
                .char_indices()
                .nth(SHOWN)
                .map_or(text.len(), |(i, _)| i);
            std::borrow::Cow::Owned(format!(
                "{}… ({} characters)",
                &text[..cut],
                text.chars().count()
            ))
        }
    }
}

/// The most characters of a message line that [`bounded`] leaves whole.
pub const MESSAGE_MAX: usize = 1000;

/// `message`, or its first and last 480 characters around `… (N characters left out) …` when it
/// is longer than [`MESSAGE_MAX`] characters: however long the input a message quotes (a
/// position with spaces, or a JSON parser's error quoting a bad string whole), the message
/// stays short (testers 74, 75). The web API's errors and the CLI's error lines use it.
///
/// The cuts fall between words where a space lies within 40 characters of them (tester 107:
/// `end=… (145 characters left out) …oved by hand?)`), else inside the word (a long number or
/// string has no space to cut at).
pub fn bounded(message: &str) -> std::borrow::Cow<'_, str> {
    let n = message.chars().count();
    if n <= MESSAGE_MAX {
        return std::borrow::Cow::Borrowed(message);
    }
    let chars: Vec<char> = message.chars().collect();
    const KEEP: usize = 480;
    const SLACK: usize = 40;
    // The head ends before the last space of its last SLACK characters; the tail starts after
    // the first space of its first SLACK.
    let head_end = (KEEP - SLACK..KEEP)
        .rev()
        .find(|&i| chars[i] == ' ')
        .unwrap_or(KEEP);
    let tail_start = (n - KEEP..n - KEEP + SLACK)
        .find(|&i| chars[i] == ' ')
        .map_or(n - KEEP, |i| i + 1);
    let head: String = chars[..head_end].iter().collect();
    let tail: String = chars[tail_start..].iter().collect();
    std::borrow::Cow::Owned(format!(
        "{head}… ({} characters left out) …{tail}",
        tail_start - head_end
    ))
}

/// The column, counted in characters from 1, of the byte column `byte_column` (counted in
/// bytes from 1, as `serde_json` counts it) on line `line` (from 1) of `text`, so that an error
/// message points at the same place as the position parser's columns do, whatever letters come
/// before it (`{"south": "Zoë", x}`: the `x` is at column 18, byte column 19). A byte column
/// inside a character counts that character; one past the line's end counts each byte past
/// it as a character. Line 0 (no place) gives `byte_column` back.
pub fn char_column(text: &str, line: usize, byte_column: usize) -> usize {
    let Some(line_text) = line.checked_sub(1).and_then(|i| text.split('\n').nth(i)) else {
        return byte_column;
    };
    if byte_column > line_text.len() {
        return line_text.chars().count() + (byte_column - line_text.len());
    }
    let mut end = byte_column;
    while !line_text.is_char_boundary(end) {
        end -= 1;
    }
    line_text[..end].chars().count() + usize::from(end < byte_column)
}

/// `serde_json`'s message for `e`, a failure to read `text`, with the column of its
/// `at line L column C` counted in characters ([`char_column`]) instead of bytes.
pub fn json_message(text: &str, e: &serde_json::Error) -> String {
    let message = e.to_string();
    if e.line() == 0 {
        return message;
    }
    let at = format!(" at line {} column {}", e.line(), e.column());
    match message.strip_suffix(&at) {
        Some(head) => format!(
            "{head} at line {} column {}",
            e.line(),
            char_column(text, e.line(), e.column())
        ),
        None => message,
    }
}
/// An item of a layout as the error message names it.
fn item_text(text: &str) -> String {
    if text.is_empty() {
        "an empty item".to_string()
    } else {
        format!("'{}'", clipped(text))
    }
}

/// The hint for counts separated by spaces instead of commas (`1 2 3`: tester 106), with them
/// written as they should be (`; separate the counts with commas: '1,2,3'`); empty for any
/// other text.
fn spaced_counts(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() >= 2 && words.iter().all(|w| w.bytes().all(|b| b.is_ascii_digit())) {
        format!(
            "; separate the counts with commas: '{}'",
            clipped(&words.join(","))
        )
    } else {
        String::new()
    }
}

/// A position string that does not parse. `at` is the 1-based character column of the problem.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParsePositionError {
    /// Empty input.
    #[error("empty position: expected pit counts in bin order, then S or N, e.g. '4,4,4,4,4,4,0,4,4,4,4,4,4,0 S'")]
    Empty,
    /// A pit count is not a number 0..=255.
    #[error("column {at}: '{shown}' is not a seed count (0 to 255){}", spaced_counts(.text), shown = crate::error::clipped(.text))]
    BadCount {
        /// Column of the token.
        at: usize,
        /// The token.
        text: String,
    },
    /// The side token is not S or N (or South or North).
    #[error("column {at}: '{shown}' is not a side to move (S, N, South or North, in any case)", shown = crate::error::clipped(.text))]
    BadSide {
        /// Column of the token.
        at: usize,
        /// The token.
        text: String,
    },
    /// Punctuation other than a comma where a count ends (`4;4;4`), taken for neither a count
    /// nor a side.
    #[error("column {at}: '{shown}' after a seed count: counts are separated by commas, e.g. '4,4,4,4,4,4,0,4,4,4,4,4,4,0 S'", shown = crate::error::clipped(.text))]
    BadSeparator {
        /// Column of the character.
        at: usize,
        /// The character.
        text: String,
    },
    /// A number where the side to move belongs, after a space (`1 0 1 0 S`): the counts are
    /// separated by spaces, not commas.
    #[error("column {at}: '{shown}' follows a seed count after a space: counts are separated by commas, e.g. '4,4,4,4,4,4,0,4,4,4,4,4,4,0 S'", shown = crate::error::clipped(.text))]
    MissingComma {
        /// Column of the number.
        at: usize,
        /// The number.
        text: String,
    },
    /// A comma between the last count and the side to move (`1,0,1,0, S`): the side follows the
    /// last count after a space. `at` is the comma's column.
    #[error("column {at}: a comma before the side to move: the side follows the last count after a space, e.g. '4,4,4,4,4,4,0,4,4,4,4,4,4,0 S'")]
    CommaBeforeSide {
        /// Column of the comma.
        at: usize,
    },
    /// An unknown trailing token.
    #[error("column {at}: unexpected '{shown}' (after the side only 'opening', 'first-turn' or 'pie' may follow)", shown = crate::error::clipped(.text))]
    Trailing {
        /// Column of the token.
        at: usize,
        /// The token.
        text: String,
    },
    /// A token after the phase tag (`... S opening pie`): the tag ends the position, one at
    /// most.
    #[error("column {at}: unexpected '{shown}' after the phase tag: a position ends with its one tag ('opening', 'first-turn' or 'pie')", shown = crate::error::clipped(.text))]
    AfterPhaseTag {
        /// Column of the token.
        at: usize,
        /// The token.
        text: String,
    },
    /// The counts parse but do not make a valid position.
    #[error(transparent)]
    Setup(#[from] SetupError),
}

/// Text that names no side ([`crate::Side`]'s `FromStr`), quoted as given (clipped, see
/// [`clipped`]).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("'{}' is not a side: S, N, South or North (in any case)", clipped(.0))]
pub struct ParseSideError(pub String);

/// A move that cannot be played in the position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MoveError {
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// House number outside 1..=m.
    #[error("there is no house {house}: houses are numbered 1 to {houses}")]
    NoSuchHouse {
        /// The house asked for.
        house: u8,
        /// Houses a side.
        houses: usize,
    },
    /// The house is empty.
    #[error("house {0} is empty")]
    EmptyHouse(u8),
    /// `swap` outside North's first action under the pie rule.
    #[error("swap is only allowed as North's first action under the pie rule")]
    SwapNotAllowed,
    /// A move text that is neither a house number nor `swap`.
    #[error("'{shown}' is not a move: expected a house number (digits, no leading zero) or 'swap'", shown = crate::error::clipped(.0))]
    Parse(String),
    /// A house number in plain digits above 255, which no board has (a side has at most
    /// [`MAX_HOUSES`](crate::MAX_HOUSES) houses); the text as written.
    #[error("there is no house {shown}: a side has at most {max} houses", max = crate::MAX_HOUSES, shown = crate::error::clipped(.0))]
    HouseTooLarge(String),
    /// A written turn with an empty action: nothing at all, two dashes in a row (`3--6`), or a
    /// dash first (`-1`). The one wording of `kalah show --moves`, game records and the web API.
    #[error(
        "an empty action; join the actions of one turn with single dashes or commas and no spaces, e.g. \
         3-6 (a trailing dash, as in 3-, says the turn goes on)"
    )]
    EmptyAction,
    /// [`MoveError::HouseTooLarge`] told once the board is known ([`MoveError::on_board`]), in
    /// the words of [`MoveError::NoSuchHouse`]: the house number as written, and the board's
    /// houses a side.
    #[error("there is no house {shown}: houses are numbered 1 to {houses}", shown = crate::error::clipped(.house))]
    NoSuchLargeHouse {
        /// The house asked for, as written (plain digits, above 255).
        house: String,
        /// Houses a side.
        houses: usize,
    },
}

impl MoveError {
    /// This error told on a board of `houses` houses a side: a [`MoveError::HouseTooLarge`]
    /// (read before the board was known) becomes [`MoveError::NoSuchLargeHouse`], so that house
    /// `99999` is refused in the same words as house `9` on six houses; any other error is
    /// returned as it is.
    pub fn on_board(self, houses: usize) -> MoveError {
        match self {
            MoveError::HouseTooLarge(house) => MoveError::NoSuchLargeHouse { house, houses },
            other => other,
        }
    }
}

/// A turn (`3-6`) that cannot be played, or a written turn that does not end where the mover's
/// turn ends. The turn-shape messages ([`TurnError::Incomplete`], [`TurnError::TooLong`],
/// [`TurnError::OpenNoExtraTurn`]) are the one wording every front end uses (game records, the
/// web API, `kalah play`), after its own context; they come from
/// [`Turn::check_step`](crate::Turn::check_step).
///
/// `turn` is the turn in our notation (actions joined by `-`, without the trailing `-` of an
/// unfinished turn); `index` is the 1-based position of the action in the turn; `mv` is that
/// action.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TurnError {
    /// An action of the turn is illegal (in the position its earlier actions leave).
    #[error("'{shown}': {} cannot be played: {source}", action(*.index, *.mv), shown = crate::error::clipped(.turn))]
    Move {
        /// The turn as written.
        turn: String,
        /// 1-based index of the failing action in the turn.
        index: usize,
        /// That action.
        mv: Move,
        /// Why.
        source: MoveError,
    },
    /// A turn with no action at all.
    #[error("an empty turn: a turn has at least one action")]
    Empty,
    /// A whole turn stops while its mover still has an extra turn to play: its last action
    /// earns an extra turn (and does not end the game).
    #[error(
        "'{shown}' stops, but {} earns an extra turn; write '{shown}-' if the turn is unfinished",
        action(*.index, *.mv)
    , shown = crate::error::clipped(.turn))]
    Incomplete {
        /// The turn.
        turn: String,
        /// 1-based index of the last action (the number of actions).
        index: usize,
        /// The last action.
        mv: Move,
    },
    /// The turn goes on after an action that ends it: the action earns no extra turn, or it
    /// ends the game.
    #[error(
        "'{shown}' goes on after {}, which ends the {}",
        action(*.index, *.mv),
        if *.game_over { "game" } else { "turn" }
    , shown = crate::error::clipped(.turn))]
    TooLong {
        /// The turn.
        turn: String,
        /// 1-based index of the action that ended the turn.
        index: usize,
        /// That action.
        mv: Move,
        /// The action ended the game (it may have landed in the store, but the game is over).
        game_over: bool,
    },
    /// An action whose house number is above 255 (no board has it), after actions that can be
    /// played: told where it comes in the turn, in the words of [`TurnError::Move`]
    /// ([`Turn::refuse_large_house`](crate::Turn::refuse_large_house)).
    #[error("'{shown}': action {index} (house {hshown}) cannot be played: {source}", shown = crate::error::clipped(.turn), hshown = crate::error::clipped(.house))]
    NoSuchLargeHouse {
        /// The turn as written.
        turn: String,
        /// 1-based index of that action in the turn.
        index: usize,
        /// Its house number, as written.
        house: String,
        /// Why: [`MoveError::NoSuchLargeHouse`], with the board's houses.
        source: MoveError,
    },
    /// An unfinished turn (written with a trailing `-`, `3-`) whose last action does not leave
    /// its mover to move: it earns no extra turn, or it ends the game.
    #[error(
        "'{shown}-' ends with '-', but {} {}",
        action(*.index, *.mv),
        if *.game_over { "ends the game" } else { "earns no extra turn" }
    , shown = crate::error::clipped(.turn))]
    OpenNoExtraTurn {
        /// The turn, without the trailing `-`.
        turn: String,
        /// 1-based index of the last action (the number of actions).
        index: usize,
        /// The last action.
        mv: Move,
        /// The action ended the game.
        game_over: bool,
    },
}

/// `action 2 (house 6)`, `action 1 (swap)`: an action of a turn, for messages.
pub(crate) fn action(index: usize, mv: Move) -> String {
    match mv {
        Move::Sow(h) => format!("action {index} (house {h})"),
        Move::Swap => format!("action {index} (swap)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char_columns_count_letters_not_bytes() {
        // 'é' and 'ë' are two bytes each, '€' three.
        assert_eq!(char_column("abc", 1, 2), 2);
        assert_eq!(char_column("éé x", 1, 6), 4);
        assert_eq!(char_column("ok\n€ x", 2, 5), 3);
        // A byte column inside a character counts that character.
        assert_eq!(char_column("a€b", 1, 2), 2);
        assert_eq!(char_column("a€b", 1, 3), 2);
        assert_eq!(char_column("a€b", 1, 4), 2);
        assert_eq!(char_column("a€b", 1, 5), 3);
        // Past the end of the line, and no such line.
        assert_eq!(char_column("é", 1, 4), 3);
        assert_eq!(char_column("é", 3, 7), 7);
        assert_eq!(char_column("é", 0, 7), 7);
    }

    #[test]
    fn json_messages_count_columns_in_characters() {
        let text = "{\"south\": \"Zoë\", x}";
        let e = serde_json::from_str::<serde_json::Value>(text).unwrap_err();
        assert_eq!(e.column(), 19, "serde_json counts bytes");
        assert_eq!(
            json_message(text, &e),
            "key must be a string at line 1 column 18"
        );
        let text = "[1,\n\"€€\" 2]";
        let e = serde_json::from_str::<serde_json::Value>(text).unwrap_err();
        assert_eq!(
            json_message(text, &e),
            "expected `,` or `]` at line 2 column 6"
        );
        // An error with no place is left as it is.
        let e = serde_json::from_str::<u8>("300").unwrap_err();
        assert_eq!(json_message("300", &e), e.to_string());
    }
}
