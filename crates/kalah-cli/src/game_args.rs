//! The rule flags shared by every subcommand, and position parsing against them.

use anyhow::{bail, Context, Result};
use clap::Args;
use kalah_core::{
    CaptureRule, EndRule, LeftoverRule, Phase, PhaseNeeds, PhaseTagProblem, Position, Rules, Side,
    Start,
};

/// Board and rule flags. Defaults: Kalah(6,4), standard rules.
#[derive(Args, Debug, Clone, Default)]
pub struct RuleArgs {
    /// Houses a side, 1 to 12 [default: 6, or the count of --layout / the position].
    #[arg(long, value_name = "M", allow_negative_numbers = true, value_parser = parse_houses)]
    pub houses: Option<usize>,
    /// Seeds in each house at the start [default: 4].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_seeds)]
    pub seeds: Option<u32>,
    /// Custom starting counts of houses 1..m, e.g. 4,4,5,4,3,4 (each side the same in its own
    /// sowing order).
    #[arg(
        long,
        value_name = "COUNTS",
        conflicts_with = "seeds",
        allow_hyphen_values = true,
        value_parser = parse_layout
    )]
    pub layout: Option<Layout>,
    /// With --layout: North's row mirrors South's, so facing houses hold the same count.
    #[arg(long, requires = "layout", conflicts_with = "seeds")]
    pub mirrored: bool,
    /// Capture rule: standard (opposite house must hold seeds) or empty (lone seed captured too).
    #[arg(long, value_name = "RULE", default_value = "standard", value_parser = parse_capture)]
    pub capture: CaptureRule,
    /// End rule: row-empty (game ends when either row is empty) or mover-blocked (when the
    /// player to move has no seeds).
    #[arg(long, value_name = "RULE", default_value = "row-empty", value_parser = parse_end)]
    pub end: EndRule,
    /// Who takes the seeds left in the houses at the end: owner (each player his own row),
    /// emptier (all to the player whose row is empty, whoever emptied it) or nobody.
    #[arg(long, value_name = "RULE", default_value = "owner", value_parser = parse_leftovers)]
    pub leftovers: LeftoverRule,
    /// The game stops once one store holds more than half of all seeds.
    #[arg(long)]
    pub majority_end: bool,
    /// Pie rule: North's first action may be `swap`.
    #[arg(long)]
    pub pie: bool,
    /// Manchester rule: South's very first sowing never earns an extra turn.
    #[arg(long)]
    pub no_first_move_extra_turn: bool,
}

/// Parses a whole number of `unit` (e.g. "threads") from `lo` to `hi` for a clap value parser
/// (a refused value exits with code 2): `'x' is not a whole number of threads`, `use 1 to 256
/// threads, not 0` (also for negative numbers and numbers too large for any integer type); an
/// empty `unit` leaves the unit out (`use 0 to 65535, not -1`). Plain digits only, as positions,
/// moves and `--layout` are read: `+4` is not a whole number here.
///
/// # Errors
/// The message, when `s` is not such a number.
pub(crate) fn whole_number(s: &str, lo: u64, hi: u64, unit: &str) -> Result<u64, String> {
    let t = s.trim();
    let plain = !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if let Ok(n) = t.parse::<u64>() {
        if plain && (lo..=hi).contains(&n) {
            return Ok(n);
        }
    }
    // A plus sign is named, with the number without it (tester 106: `--nodes +5` was "not a
    // whole number" with no hint why).
    if let Some(digits) = t.strip_prefix('+') {
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            let what = if unit.is_empty() {
                String::new()
            } else {
                format!(" of {unit}")
            };
            return Err(format!(
                "'{s}' is not a whole number{what}: write it without the '+' ({digits})"
            ));
        }
    }
    let digits = t.strip_prefix('-').unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        if unit.is_empty() {
            return Err(format!("'{s}' is not a whole number"));
        }
        return Err(format!("'{s}' is not a whole number of {unit}"));
    }
    if unit.is_empty() {
        return Err(format!("use {lo} to {hi}, not {t}"));
    }
    Err(format!("use {lo} to {hi} {unit}, not {t}"))
}

/// Parses `--seeds`: 0 to 255, what a house can hold (the board's limits are checked with the
/// rest of the start: `--seeds 0`, or more than 255 seeds on the board, is a bad start, exit
/// code 1).
pub(crate) fn parse_seeds(s: &str) -> Result<u32, String> {
    whole_number(s, 0, u8::MAX.into(), "seeds").map(|n| n as u32)
}

/// Parses `--houses`: 1 to [`kalah_core::MAX_HOUSES`].
pub(crate) fn parse_houses(s: &str) -> Result<usize, String> {
    whole_number(s, 1, kalah_core::MAX_HOUSES as u64, "houses").map(|n| n as usize)
}

/// Parses `--seed`: any whole number from 0 to 2^64 - 1 (`play`, `match`, `agent`).
pub(crate) fn parse_seed(s: &str) -> Result<u64, String> {
    whole_number(s, 0, u64::MAX, "")
}

/// Parses `--rules`: the whole rule set in the text form (`capture=empty pie=on`; keys left out
/// take the standard rule), as `agent` and `referee` take it.
pub(crate) fn parse_rules(s: &str) -> Result<kalah_core::Rules, String> {
    s.parse().map_err(|e: kalah_core::RulesError| e.to_string())
}

fn parse_capture(s: &str) -> Result<CaptureRule, String> {
    s.parse().map_err(|e: kalah_core::RulesError| e.to_string())
}
fn parse_end(s: &str) -> Result<EndRule, String> {
    s.parse().map_err(|e: kalah_core::RulesError| e.to_string())
}
fn parse_leftovers(s: &str) -> Result<LeftoverRule, String> {
    s.parse().map_err(|e: kalah_core::RulesError| e.to_string())
}

/// The house counts of `--layout`: houses 1..m of each side, in its own sowing order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout(pub Vec<u8>);

/// Parses `--layout 4,4,5,4,3,4` for clap, so that a malformed value exits with code 2 like any
/// other: every item a seed count 0 to 255, 1 to [`kalah_core::MAX_HOUSES`] items.
///
/// # Errors
/// The message naming the first bad item, or the count of houses.
fn parse_layout(s: &str) -> Result<Layout, String> {
    let counts = Start::parse_counts(s).map_err(|e| e.to_string())?;
    if counts.len() > kalah_core::MAX_HOUSES {
        return Err(format!(
            "{} houses; use 1 to {} houses",
            counts.len(),
            kalah_core::MAX_HOUSES
        ));
    }
    Ok(Layout(counts))
}

impl RuleArgs {
    /// The rule set.
    pub fn rules(&self) -> Rules {
        Rules {
            capture: self.capture,
            end: self.end,
            leftovers: self.leftovers,
            majority_end: self.majority_end,
            pie: self.pie,
            first_move_extra_turn: !self.no_first_move_extra_turn,
        }
    }

    /// The starting layout from --houses, --seeds, --layout, --mirrored.
    pub fn start(&self) -> Result<Start> {
        if let Some(Layout(counts)) = &self.layout {
            if let Some(m) = self.houses {
                if m != counts.len() {
                    crate::output::usage_bail!(
                        "--houses {m} but --layout gives {}",
                        crate::output::plural(counts.len() as u64, "house", "houses")
                    );
                }
            }
            return Ok(Start::layout(counts, self.mirrored)?);
        }
        Ok(Start::uniform(
            self.houses.unwrap_or(6),
            self.seeds.unwrap_or(4),
        )?)
    }

    /// The starting position of the flags' layout under the flags' rules.
    pub fn start_position(&self) -> Result<Position> {
        Ok(Position::start(&self.start()?, &self.rules()))
    }

    /// `text` parsed as a position (settled under the rules), or the start position when `None`.
    /// A position whose board size contradicts an explicit --houses is refused, and so is a phase
    /// tag (`opening`, `first-turn`, `pie`) without the opening rule it belongs to.
    ///
    /// A position given without a phase tag under an opening rule gets a note on stderr
    /// ([`opening_rules_note`]): the rule has no effect on it.
    ///
    /// # Errors
    /// A position that does not parse, or contradicts the flags.
    pub fn position(&self, text: Option<&str>) -> Result<Position> {
        let pos = self.position_quiet(text)?;
        if text.is_some() {
            let note = opening_rules_note(&self.rules(), &pos, "the position", RulesNamed::Flags);
            if let Some(note) = note {
                stderr_line!("kalah: note: {note}");
            }
        }
        Ok(pos)
    }

    /// [`Self::position`] without its note (for `solve --batch`, which says it once).
    ///
    /// # Errors
    /// As [`Self::position`].
    pub fn position_quiet(&self, text: Option<&str>) -> Result<Position> {
        let Some(text) = text else {
            return self.start_position();
        };
        let rules = self.rules();
        let mut pos: Position = match text.parse() {
            Ok(pos) => pos,
            // A tag the rules lack is named first, even where it does not fit the side to
            // move either (`... S pie` without --pie).
            Err(e) => match PhaseTagProblem::of_refused_text(&e, &rules) {
                Some(problem) => bail!("bad position '{text}': {}", tag_problem_text(problem)),
                None => return Err(e).with_context(|| format!("bad position '{text}'")),
            },
        };
        if let Some(m) = self.houses {
            if m != pos.houses() {
                let n = pos.houses();
                crate::output::usage_bail!(
                    "--houses {m} but the position has {n} house{} a side",
                    if n == 1 { "" } else { "s" }
                );
            }
        }
        if let Some(problem) = pos.phase_tag_problem(&rules) {
            bail!("bad position '{text}': {}", tag_problem_text(problem));
        }
        if self.layout.is_some() || self.seeds.is_some() || self.mirrored {
            crate::output::usage_bail!(
                "--seeds, --layout and --mirrored set the start position; they cannot be used with a POSITION"
            );
        }
        pos.settle(&rules);
        Ok(pos)
    }
}

/// How [`opening_rules_note`] names the opening rules: as the command line's flags, or as a
/// game record's `Rules` tag gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RulesNamed {
    /// `--pie`, `--no-first-move-extra-turn`.
    Flags,
    /// `its rule pie=on`, `its rules pie=on and first-move-extra-turn=off`.
    RecordTags,
}

/// The note for a position without a phase tag (`what`, e.g. `the position`) under an opening
/// rule (the pie rule, or no extra turn on the first move), or `None`: such a position counts
/// as past the opening, so the rule has no effect on it. Tester 72: `kalah solve
/// '3,3,3,0,3,3,3,0 S' --pie` gave +2, the value without the swap, and
/// `--no-first-move-extra-turn` let South's first sowing earn an extra turn, both silently.
pub fn opening_rules_note(
    rules: &Rules,
    pos: &Position,
    what: &str,
    named: RulesNamed,
) -> Option<String> {
    // A game over under the rules (a record's Start is not settled) has no opening to be in
    // (tester 75: the note's fix, `... S opening`, was then refused).
    let mut settled = *pos;
    settled.settle(rules);
    if pos.phase() != Phase::Normal || settled.to_move().is_none() {
        return None;
    }
    let [pie, manchester] = match named {
        RulesNamed::Flags => ["--pie", "--no-first-move-extra-turn"],
        RulesNamed::RecordTags => ["pie=on", "first-move-extra-turn=off"],
    };
    let names: Vec<&str> = [(rules.pie, pie), (!rules.first_move_extra_turn, manchester)]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
    let (prefix, verb) = match (named, names.len()) {
        (_, 0) => return None,
        (RulesNamed::Flags, 1) => ("", "has"),
        (RulesNamed::Flags, _) => ("", "have"),
        (RulesNamed::RecordTags, 1) => ("its rule ", "has"),
        (RulesNamed::RecordTags, _) => ("its rules ", "have"),
    };
    let flags = format!("{prefix}{} {verb}", names.join(" and "));
    let fix = if pos.to_move() == Some(Side::South)
        && pos.store(Side::South) == 0
        && pos.store(Side::North) == 0
    {
        format!("a game from its first move is written '{pos} opening'")
    } else {
        "a position in the opening carries its phase tag (opening, first-turn or pie; see docs/CLI.md)".to_string()
    };
    Some(format!(
        "{what} has no phase tag, so it counts as past the opening and {flags} no effect on it; {fix}"
    ))
}

/// A phase-tag problem in the command line's terms: the flags that give the missing rules.
fn tag_problem_text(problem: PhaseTagProblem) -> String {
    match problem {
        PhaseTagProblem::NeedsRules { tag, needs } => {
            let needs = match needs {
                PhaseNeeds::Pie => "add --pie",
                PhaseNeeds::PieOrManchester => "add --pie or --no-first-move-extra-turn",
                PhaseNeeds::PieWithFirstMoveExtraTurn => {
                    "use --pie without --no-first-move-extra-turn (under the Manchester rule \
                     South's first sowing earns no extra turn, so no first turn goes on)"
                }
            };
            format!("phase tag '{tag}' belongs to the opening rules: {needs}, or leave the tag out")
        }
        problem => problem.to_string(),
    }
}
