//! Drawing a position as a text board, colour decisions, and plain-language reports of what an
//! action did. Shared by `play` and `show`.
//!
//! The board is drawn from South's chair: North's row on top, numbered from North's view (North's
//! house 1, the farthest from North's store, is at the top right), South's row below numbered 1..m
//! left to right, North's store at the left end and South's store at the right end. Seeds travel
//! counter-clockwise.

use std::fmt::Write as _;
use std::io::IsTerminal;

use crate::output::plural;
use kalah_core::{EndReason, Outcome, Position, Rules, Side};

/// When to use colour (ANSI escapes) in the output.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColorChoice {
    /// Colour when stdout is a terminal, the `NO_COLOR` variable is unset or empty, and `TERM`
    /// is not `dumb` (a terminal that shows escapes as text).
    #[default]
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

impl ColorChoice {
    /// Whether to colour stdout.
    pub fn enabled(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
                let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
                !no_color && !dumb && std::io::stdout().is_terminal()
            }
        }
    }
}

/// Text styling: ANSI escapes when colour is on, nothing otherwise.
#[derive(Clone, Copy, Debug)]
pub struct Paint {
    color: bool,
}

impl Paint {
    /// Styling on or off.
    pub fn new(color: bool) -> Paint {
        Paint { color }
    }

    fn wrap(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// Bold.
    pub fn bold(&self, text: &str) -> String {
        self.wrap("1", text)
    }

    /// Dim (house numbers, frames).
    pub fn dim(&self, text: &str) -> String {
        self.wrap("2", text)
    }

    /// The colour of a side's seeds and labels.
    pub fn side(&self, side: Side, text: &str) -> String {
        match side {
            Side::South => self.wrap("33", text), // yellow
            Side::North => self.wrap("36", text), // cyan
        }
    }

    /// A highlighted element (the house last sown, the side to move).
    pub fn strong(&self, side: Side, text: &str) -> String {
        match side {
            Side::South => self.wrap("1;33", text),
            Side::North => self.wrap("1;36", text),
        }
    }

    /// Errors in the game dialogue.
    pub fn error(&self, text: &str) -> String {
        self.wrap("31", text)
    }

    /// Good news (captures, extra turns, a win).
    pub fn good(&self, text: &str) -> String {
        self.wrap("32", text)
    }
}

/// Labels and marks of a drawing.
#[derive(Clone, Debug, Default)]
pub struct BoardLabels {
    /// Shown after "North", e.g. "(engine, medium)".
    pub north: String,
    /// Shown after "South", e.g. "(you)".
    pub south: String,
    /// The house last sown (its side and number), drawn in bold.
    pub last: Option<(Side, usize)>,
}

/// Draws `pos` as a text board, see the module documentation. Ends with a newline.
pub fn draw(pos: &Position, labels: &BoardLabels, paint: Paint) -> String {
    let m = pos.houses();
    let widest = pos
        .pits()
        .iter()
        .map(|&n| n.to_string().len())
        .chain(std::iter::once(m.to_string().len()))
        .max()
        .unwrap_or(1)
        .max(2);
    let cell = widest + 2; // one blank either side
    let to_move = pos.to_move();
    let mut s = String::new();

    let marker = |side: Side| -> String {
        if to_move == Some(side) {
            paint.strong(side, "  <- to move")
        } else {
            String::new()
        }
    };
    let title = |side: Side, extra: &str| -> String {
        let name = if to_move == Some(side) {
            paint.strong(side, side.name())
        } else {
            paint.side(side, side.name())
        };
        if extra.is_empty() {
            format!("{name}{}", marker(side))
        } else {
            format!("{name} {extra}{}", marker(side))
        }
    };
    let numbers = |side: Side| -> String {
        // Each number right-aligned under its count: "|" + store cell + "|", then per house
        // " count " + "|".
        let mut line = " ".repeat(cell + 2);
        let order: Vec<usize> = match side {
            Side::North => (1..=m).rev().collect(),
            Side::South => (1..=m).collect(),
        };
        for h in order {
            let text = format!("{h:>w$}", w = widest);
            line.push(' ');
            line.push_str(&paint.dim(&text));
            line.push_str("  ");
        }
        line.trim_end().to_string()
    };
    let count = |side: Side, h: usize| -> String {
        let n = pos.house(side, h);
        let text = format!("{n:>w$}", w = widest);
        let styled = if labels.last == Some((side, h)) {
            paint.strong(side, &text)
        } else {
            paint.side(side, &text)
        };
        format!(" {styled} ")
    };
    let frame = |c: &str| paint.dim(c);
    let border = {
        let seg = "-".repeat(cell);
        let mut b = String::from("+");
        for _ in 0..m + 2 {
            b.push_str(&seg);
            b.push('+');
        }
        frame(&b)
    };
    let inner = {
        let seg = "-".repeat(cell);
        let mut b = String::from("+");
        for _ in 0..m {
            b.push_str(&seg);
            b.push('+');
        }
        frame(&b)
    };
    let blank = " ".repeat(cell);
    let store = |side: Side| -> String {
        let text = format!("{:>w$}", pos.store(side), w = widest);
        format!(" {} ", paint.strong(side, &text))
    };

    let _ = writeln!(s, "{}", title(Side::North, &labels.north));
    let _ = writeln!(s, "{}", numbers(Side::North));
    let _ = writeln!(s, "{border}");
    // North's row, houses m..1 from left to right.
    let mut row = format!("{}{blank}{}", frame("|"), frame("|"));
    for h in (1..=m).rev() {
        row.push_str(&count(Side::North, h));
        row.push_str(&frame("|"));
    }
    row.push_str(&blank);
    row.push_str(&frame("|"));
    let _ = writeln!(s, "{row}");
    // The stores, either side of the line between the rows.
    let _ = writeln!(
        s,
        "{}{}{}{}{}",
        frame("|"),
        store(Side::North),
        inner,
        store(Side::South),
        frame("|")
    );
    let mut row = format!("{}{blank}{}", frame("|"), frame("|"));
    for h in 1..=m {
        row.push_str(&count(Side::South, h));
        row.push_str(&frame("|"));
    }
    row.push_str(&blank);
    row.push_str(&frame("|"));
    let _ = writeln!(s, "{row}");
    let _ = writeln!(s, "{border}");
    let _ = writeln!(s, "{}", numbers(Side::South));
    let _ = writeln!(s, "{}", title(Side::South, &labels.south));
    let _ = writeln!(
        s,
        "{}",
        paint.dim("(stores: North's left, South's right; sowing goes counter-clockwise)")
    );
    s
}

/// The legal houses of the side to move as `1 2 4`, plus `swap` when the pie rule allows it.
pub fn legal_list(pos: &Position, rules: &Rules) -> String {
    pos.legal_moves(rules)
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// What one action did, in a sentence, without the actor: `"sows 4 seeds from house 3; the last
/// lands in the store: extra turn"`. `before` is the position before the action, `out` its
/// outcome.
pub fn describe(before: &Position, rules: &Rules, out: &Outcome) -> String {
    if out.swapped {
        return "swaps sides (pie rule): the players exchange rows and stores, and the first \
                player, now North, moves next"
            .to_string();
    }
    let mover = before.side();
    let m = before.houses();
    let mut s = plural(out.sown.into(), "seed", "seeds");
    s.insert_str(0, "sows ");
    let store_bin = before.store_bin(mover);
    if out.last_bin == store_bin {
        if out.ended.is_some() {
            // The game is over: no extra turn to play, whatever the rules.
            s.push_str(", the last into the store");
        } else if out.extra_turn {
            s.push_str(", the last into the store: extra turn");
        } else {
            s.push_str(
                ", the last into the store, but the first sowing earns no extra turn \
                 (Manchester rule)",
            );
        }
    }
    if out.captured > 0 {
        // The landing house is the mover's house whose bin is out.last_bin.
        let landing = match mover {
            Side::South => out.last_bin + 1,
            Side::North => out.last_bin - m,
        };
        let opposite = out.captured - 1;
        let facing = m + 1 - landing;
        if opposite > 0 {
            let _ = write!(
                s,
                ", the last into empty house {landing}: captures {} ({} from {}'s house {facing} \
                 and the landing seed)",
                plural(out.captured.into(), "seed", "seeds"),
                opposite,
                mover.opposite()
            );
        } else {
            let _ = write!(
                s,
                ", the last into empty house {landing}: captures the lone seed (empty capture)"
            );
        }
    }
    if let Some(reason) = out.ended {
        let _ = write!(
            s,
            ". Game over: {}",
            end_reason_text(reason, rules, out.left)
        );
    }
    s
}

/// Why the game ended and where the seeds `left` in South's and North's houses (`[south,
/// north]`, before the sweep: [`kalah_core::Outcome::left`]) went.
pub fn end_reason_text(reason: EndReason, rules: &Rules, left: [u8; 2]) -> String {
    format!("{reason}; {}", reason.leftovers_text(rules, left))
}

/// `South 25, North 23: South wins by 2` (or `a draw`).
pub fn score_text(score: [u8; 2]) -> String {
    let [s, n] = score;
    let verdict = match s.cmp(&n) {
        std::cmp::Ordering::Greater => format!("South wins by {}", s - n),
        std::cmp::Ordering::Less => format!("North wins by {}", n - s),
        std::cmp::Ordering::Equal => "a draw".to_string(),
    };
    format!("South {s}, North {n}: {verdict}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use kalah_core::{Move, Start};

    #[test]
    fn board_shows_every_count_in_place() {
        let rules = Rules::default();
        let pos: Position = "1,2,3,4,5,6,7,8,9,10,11,12,13,14 S".parse().unwrap();
        let text = draw(&pos, &BoardLabels::default(), Paint::new(false));
        let lines: Vec<&str> = text.lines().collect();
        // North's row: houses 6..1 from left to right = bins 13..8 → 13 12 11 10 9 8.
        let north: Vec<u32> = lines[3]
            .split('|')
            .filter_map(|t| t.trim().parse().ok())
            .collect();
        assert_eq!(north, vec![13, 12, 11, 10, 9, 8]);
        let south: Vec<u32> = lines[5]
            .split('|')
            .filter_map(|t| t.trim().parse().ok())
            .collect();
        assert_eq!(south, vec![1, 2, 3, 4, 5, 6]);
        let stores: Vec<u32> = lines[4]
            .split(['|', '+', '-'])
            .filter_map(|t| t.trim().parse().ok())
            .collect();
        assert_eq!(stores, vec![14, 7]);
        assert!(!text.contains('\x1b'));
        let _ = rules;
    }

    /// Regression (tester 51): at a majority stop under the emptier rule the text said the
    /// leftovers went to their owners whatever the rows held; and a game ended with no seeds
    /// left in the houses said where they went.
    #[test]
    fn end_text_follows_the_sweep() {
        let rules: Rules = "capture=empty leftovers=emptier majority-end=on"
            .parse()
            .unwrap();
        // South's 1 lands in empty house 2 facing an empty house and takes the lone seed:
        // store 4 of 6, South's row empty, North's 2 seeds to South (6-0).
        let cases = [
            (
                "1,0,0,3,1,0,1,0 S",
                1,
                "South's store holds more than half of the seeds; the seeds left in the houses \
                 go to South, whose row is empty",
                [6, 0],
            ),
            // South's 3 into the store: 4 of 7, both rows hold seeds: each keeps his own.
            (
                "1,0,1,3,1,1,0,0 S",
                3,
                "South's store holds more than half of the seeds; neither row is empty, so the \
                 seeds left in the houses go to their owners' stores",
                [5, 2],
            ),
        ];
        for (text, house, says, score) in cases {
            let before: Position = text.parse().unwrap();
            let mut after = before;
            let out = after.play(&rules, Move::Sow(house)).unwrap();
            assert_eq!(out.left.iter().sum::<u8>(), if house == 1 { 2 } else { 3 });
            let line = describe(&before, &rules, &out);
            assert!(line.ends_with(says), "{text}: {line}");
            assert_eq!(after.score(&rules), Some(score), "{text}");
        }
        // South's 1 captures North's last 2 seeds: nothing left to sweep.
        let rules = Rules::default();
        let before: Position = "1,0,0,3,0,2,0,0 S".parse().unwrap();
        let mut after = before;
        let out = after.play(&rules, Move::Sow(1)).unwrap();
        let line = describe(&before, &rules, &out);
        assert!(
            line.ends_with("Game over: North's row is empty; no seeds are left in the houses"),
            "{line}"
        );
    }

    #[test]
    fn describes_capture_and_extra_turn() {
        let rules = Rules::default();
        let start = Position::start(&Start::uniform(6, 4).unwrap(), &rules);
        let mut p = start;
        let out = p.play(&rules, Move::Sow(3)).unwrap();
        assert!(describe(&start, &rules, &out).contains("extra turn"));
        // South sows house 1 (1 seed) into empty house 2 facing North's house 5 (4 seeds).
        let before: Position = "1,0,4,4,4,4,0,4,4,4,4,4,4,0 S".parse().unwrap();
        let mut p = before;
        let out = p.play(&rules, Move::Sow(1)).unwrap();
        let text = describe(&before, &rules, &out);
        assert!(
            text.contains("captures 5 seeds (4 from North's house 5"),
            "{text}"
        );
    }
}
