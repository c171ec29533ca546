//! Positions, sowing, captures, extra turns, the end of the game and the sweep.

use std::fmt;
use std::str::FromStr;

use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};

use crate::error::{MoveError, ParsePositionError, SetupError};
use crate::moves::Move;
use crate::rules::{CaptureRule, EndRule, LeftoverRule, PhaseNeeds, Rules, Start};
use crate::{MAX_HOUSES, MAX_PITS, MAX_SEEDS};

/// One of the two players, named by the row he owns. South moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Side {
    /// The first player; owns bins 0..m (houses) and bin m (store). serde writes `"South"` and
    /// reads `"South"` or `"S"`.
    #[serde(alias = "S")]
    South = 0,
    /// The second player; owns bins m+1..2m (houses) and bin 2m+1 (store). serde writes
    /// `"North"` and reads `"North"` or `"N"`.
    #[serde(alias = "N")]
    North = 1,
}

impl Side {
    /// The other side.
    #[inline]
    pub fn opposite(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    /// 0 for South, 1 for North (the index into `[south, north]` pairs).
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The side a letter names, `S` or `N` in either case (as positions and records write it),
    /// or `None` for any other text.
    pub fn from_letter(text: &str) -> Option<Side> {
        match text {
            "S" | "s" => Some(Side::South),
            "N" | "n" => Some(Side::North),
            _ => None,
        }
    }

    /// `S` or `N`.
    pub fn letter(self) -> char {
        match self {
            Side::South => 'S',
            Side::North => 'N',
        }
    }

    /// "South" or "North".
    pub fn name(self) -> &'static str {
        match self {
            Side::South => "South",
            Side::North => "North",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Reads `S`, `N`, `South` or `North`, in any case and with white space around: the letter
/// positions and records write, or the name `Display` writes.
impl std::str::FromStr for Side {
    type Err = crate::error::ParseSideError;
    fn from_str(text: &str) -> Result<Side, Self::Err> {
        let t = text.trim();
        Side::from_letter(t)
            .or_else(|| {
                [Side::South, Side::North]
                    .into_iter()
                    .find(|s| s.name().eq_ignore_ascii_case(t))
            })
            .ok_or_else(|| crate::error::ParseSideError(text.to_string()))
    }
}

/// Where the game stands with respect to the opening rules (pie rule, Manchester rule).
///
/// Under rules without a pie rule and with the first-move extra turn (see
/// [`Rules::has_opening_rules`]) every position is [`Phase::Normal`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Phase {
    /// No seed has been sown yet; South to move. Written `opening`.
    Opening,
    /// South's first turn goes on after an extra turn; South to move. Written `first-turn`.
    FirstTurn,
    /// North's first action, which may be `swap` under the pie rule; North to move. Written `pie`.
    PieChoice,
    /// Everything else. Not written.
    #[default]
    Normal,
}

impl Phase {
    /// The tag written after the side to move, or `None` for [`Phase::Normal`].
    pub fn tag(self) -> Option<&'static str> {
        match self {
            Phase::Opening => Some("opening"),
            Phase::FirstTurn => Some("first-turn"),
            Phase::PieChoice => Some("pie"),
            Phase::Normal => None,
        }
    }

    /// The phase whose [`Phase::tag`] is `tag` (`opening`, `first-turn`, `pie`), if any.
    pub fn from_tag(tag: &str) -> Option<Phase> {
        [Phase::Opening, Phase::FirstTurn, Phase::PieChoice]
            .into_iter()
            .find(|p| p.tag() == Some(tag))
    }
}

/// Why the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EndReason {
    /// A move left this side's row empty (end rule `row-empty`).
    RowEmpty(Side),
    /// This side was to move with no seeds (end rule `mover-blocked`).
    MoverBlocked(Side),
    /// This side's store holds more than half of all seeds (majority end).
    Majority(Side),
}

impl EndReason {
    /// The sweep at a game's end for this reason under `rules`: how many of the seeds `left` in
    /// South's and North's houses (`[south, north]`) go to South's and North's stores. Owner:
    /// each his own row; nobody: none; emptier: all to the player whose row is empty (the
    /// reason's side for the row-empty and mover-blocked ends; at a majority stop the side
    /// whose row is empty, if either, else each keeps his own).
    pub fn sweep(self, rules: &Rules, left: [u32; 2]) -> [u32; 2] {
        let [south, north] = left;
        match rules.leftovers {
            LeftoverRule::Owner => [south, north],
            LeftoverRule::Nobody => [0, 0],
            LeftoverRule::Emptier => {
                let emptier = match self {
                    EndReason::RowEmpty(s) | EndReason::MoverBlocked(s) => Some(s),
                    EndReason::Majority(_) if south == 0 => Some(Side::South),
                    EndReason::Majority(_) if north == 0 => Some(Side::North),
                    EndReason::Majority(_) => None,
                };
                // (Saturating: no board holds 2^32 seeds, but the counts are the caller's.)
                match emptier {
                    Some(Side::South) => [south.saturating_add(north), 0],
                    Some(Side::North) => [0, south.saturating_add(north)],
                    None => [south, north],
                }
            }
        }
    }

    /// Where the seeds `left` in South's and North's houses (`[south, north]`, before the
    /// sweep: [`Outcome::left`]) went when the game ended for this reason under `rules`, in
    /// words, as `kalah play` and the web page say it after [`EndReason`]'s own text: `no seeds
    /// are left in the houses`, `the seeds left in the houses go to their owners' stores`,
    /// `... count for nobody`, `... go to South, whose row is empty`, or at a majority stop
    /// with both rows holding seeds under the emptier rule, `neither row is empty, so ...`
    /// (the same sweep as [`EndReason::sweep`]).
    pub fn leftovers_text(self, rules: &Rules, left: [u8; 2]) -> &'static str {
        let [south, north] = left.map(u32::from);
        if south + north == 0 {
            return "no seeds are left in the houses";
        }
        match rules.leftovers {
            LeftoverRule::Owner => "the seeds left in the houses go to their owners' stores",
            LeftoverRule::Nobody => "the seeds left in the houses count for nobody",
            LeftoverRule::Emptier => match self.sweep(rules, [south, north]) {
                [_, 0] => "the seeds left in the houses go to South, whose row is empty",
                [0, _] => "the seeds left in the houses go to North, whose row is empty",
                _ => {
                    "neither row is empty, so the seeds left in the houses go to their owners' \
                     stores"
                }
            },
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EndReason::RowEmpty(s) => write!(f, "{s}'s row is empty"),
            EndReason::MoverBlocked(s) => write!(f, "{s} is to move and has no seeds"),
            EndReason::Majority(s) => write!(f, "{s}'s store holds more than half of the seeds"),
        }
    }
}

/// Why a position's opening phase tag does not fit the rules (from
/// [`Position::phase_tag_problem`]). Its text, for front ends to put after their own context
/// ("the position's ", "the Start position's "), names the fix in the rules' text form
/// (`pie=on`); a front end with other syntax (command-line flags) matches on `needs` instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PhaseTagProblem {
    /// The tag belongs to opening rules the rules lack.
    NeedsRules {
        /// The tag as written (`opening`, `first-turn`, `pie`).
        tag: &'static str,
        /// What the rules would need.
        needs: PhaseNeeds,
    },
    /// The game is over under the rules, and a tag belongs to a game going on.
    GameOver {
        /// The tag as written.
        tag: &'static str,
        /// Why the game is over.
        why: EndReason,
    },
}

impl PhaseTagProblem {
    /// The missing rules behind a position text that did not parse (`err`) because its phase
    /// tag does not fit its side to move or its board (`... S pie`: the tag needs North to
    /// move), when `rules` lack that tag's opening rules anyway: the fix to name first, as
    /// [`Position::phase_tag_problem`] names it for a text that parses. `None` for any other
    /// error, or if `rules` have the tag's rules.
    pub fn of_refused_text(err: &ParsePositionError, rules: &Rules) -> Option<PhaseTagProblem> {
        match err {
            ParsePositionError::Setup(SetupError::Phase { phase, .. }) => {
                let needs = rules.phase_needs(Phase::from_tag(phase)?)?;
                Some(PhaseTagProblem::NeedsRules { tag: phase, needs })
            }
            _ => None,
        }
    }
}

impl fmt::Display for PhaseTagProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PhaseTagProblem::NeedsRules { tag, needs } => write!(
                f,
                "phase tag '{tag}' belongs to the opening rules: {}, or leave the tag out",
                needs.in_rules_text()
            ),
            PhaseTagProblem::GameOver { tag, why } => write!(
                f,
                "phase tag '{tag}' needs a game that is not over ({why} under these rules): \
                 leave the tag out"
            ),
        }
    }
}

/// Whether the game goes on, and if not, the final score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// The game goes on; this side is to move.
    ToMove(Side),
    /// The game is over; final stores `[south, north]` after the sweep.
    Over([u8; 2]),
}

/// What one action did, for display and for tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// Seeds taken from the house (0 for a swap).
    pub sown: u8,
    /// Bin index (bin order) where the last seed landed; `usize::MAX` after a swap, which sows
    /// nothing.
    pub last_bin: usize,
    /// The mover moves again.
    pub extra_turn: bool,
    /// Seeds moved into the mover's store by a capture (the landing seed included); 0 if none.
    pub captured: u8,
    /// The action was a pie-rule swap.
    pub swapped: bool,
    /// The game ended with this action.
    pub ended: Option<EndReason>,
    /// Seeds in South's and North's houses when this action ended the game, before the sweep
    /// took them ([`EndReason::sweep`] says where to); `[0, 0]` when the game goes on.
    pub left: [u8; 2],
}

/// An unchecked position: pit counts in bin order, the side to move and the opening phase. Turn
/// it into a [`Position`] with [`Position::from_setup`]. A board whose houses are all empty is
/// a finished game; its side is the side that would have moved (the view of its value), or
/// `None` for South.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Setup {
    /// Pit counts in bin order: South houses 1..m, South store, North houses 1..m, North store.
    pub pits: Vec<u8>,
    /// Side to move; for a finished game (every house empty) the side that would have moved, or
    /// `None` (South).
    pub to_move: Option<Side>,
    /// Opening phase.
    pub phase: Phase,
}

/// A validated Kalah position: 1..=12 houses a side, at most 255 seeds (at least 1 while the
/// game goes on), a side to move unless the game is over. `Copy` and 32 bytes, so undo is a
/// copy.
///
/// Bins are in bin order: index `h-1` is South's house `h`, `m` South's store, `m+h` North's house
/// `h`, `2m+1` North's store. South house `h` faces North house `m+1-h` (bins `i` and `2m-i`
/// face each other).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C, align(8))]
pub struct Position {
    pits: [u8; MAX_PITS],
    houses: u8,
    to_move: Side,
    over: bool,
    phase: Phase,
    /// Seeds in South's and North's houses: kept up to date by every change of `pits`, so the
    /// end of the game is seen without summing the rows.
    rows: [u8; 2],
}

/// `RING[m][side]`: the bins a sowing by `side` on a board of `m` houses visits, in order, twice
/// round: index `h-1` is the side's house `h`, then its store, then the opponent's houses; the
/// opponent's store is left out, so one round is 2m+1 bins. Index `o + k` (o = origin house − 1,
/// 1 ≤ k ≤ 2m) is where the k-th seed of a sowing from that house lands.
const RING: [[[u8; 2 * (2 * MAX_HOUSES + 1)]; 2]; MAX_HOUSES + 1] = ring_table();
/// [`RING`] as a static, for indexing at run time.
static RING_BINS: [[[u8; 2 * (2 * MAX_HOUSES + 1)]; 2]; MAX_HOUSES + 1] = RING;

const fn ring_table() -> [[[u8; 2 * (2 * MAX_HOUSES + 1)]; 2]; MAX_HOUSES + 1] {
    let mut t = [[[0u8; 2 * (2 * MAX_HOUSES + 1)]; 2]; MAX_HOUSES + 1];
    let mut m = 1;
    while m <= MAX_HOUSES {
        let cycle = 2 * m + 1;
        let mut r = 0;
        while r < 2 * cycle {
            let k = r % cycle;
            // South: bins 0..=2m in order. North: bins m+1..=2m+1, then 0..m-1.
            t[m][0][r] = k as u8;
            t[m][1][r] = ((m + 1 + k) % (2 * m + 2)) as u8;
            r += 1;
        }
        m += 1;
    }
    t
}

/// Word form of a set of bins: 0x01 in byte `b % 8` of word `b / 8` for each bin `b`.
type Ones = [u64; 4];

const fn ones_add(mut v: Ones, bin: usize) -> Ones {
    v[bin / 8] += 1u64 << (8 * (bin % 8));
    v
}

/// Where the vectors of a board of `m` houses start in [`SOW_ONES`]: 2·m·(2m+1) entries per
/// board size (side, origin house, remaining seeds 0..=2m).
const SOW_OFFSET: [usize; MAX_HOUSES + 2] = sow_offsets();
/// Number of entries of [`SOW_ONES`].
const SOW_ENTRIES: usize = SOW_OFFSET[MAX_HOUSES + 1];

const fn sow_offsets() -> [usize; MAX_HOUSES + 2] {
    let mut t = [0usize; MAX_HOUSES + 2];
    let mut m = 1;
    while m <= MAX_HOUSES {
        t[m + 1] = t[m] + 2 * m * (2 * m + 1);
        m += 1;
    }
    t
}

/// `SOW_ONES[SOW_OFFSET[m] + (side·m + o)·(2m+1) + k]`: the change of the board's words when
/// `side` sows `k` seeds (0 ≤ k ≤ 2m, less than a lap) from its house `o + 1`: one seed more at
/// ring indices `o+1 ..= o+k` of [`RING`], `k` seeds fewer at the origin (as a wrapping sum).
static SOW_ONES: [Ones; SOW_ENTRIES] = sow_ones();

const fn sow_ones() -> [Ones; SOW_ENTRIES] {
    let mut t = [[0u64; 4]; SOW_ENTRIES];
    let mut m = 1;
    while m <= MAX_HOUSES {
        let cycle = 2 * m + 1;
        let mut s = 0;
        while s < 2 {
            let mut o = 0;
            while o < m {
                let first = SOW_OFFSET[m] + (s * m + o) * cycle;
                let mut k = 1;
                while k < cycle {
                    t[first + k] = ones_add(t[first + k - 1], RING[m][s][o + k] as usize);
                    k += 1;
                }
                // Take the k seeds from the origin (wrapping: the bins of a position hold at
                // least k there, so no byte borrows from its neighbour).
                let origin = RING[m][s][o] as usize;
                let mut k = 1;
                while k < cycle {
                    let w = origin / 8;
                    t[first + k][w] =
                        t[first + k][w].wrapping_sub((k as u64) << (8 * (origin % 8)));
                    k += 1;
                }
                o += 1;
            }
            s += 1;
        }
        m += 1;
    }
    t
}

/// `SOW_ROWS[i]`: how many seeds of the sowing of `SOW_ONES[i]` land in the mover's houses and
/// in the opponent's houses.
static SOW_ROWS: [[u8; 2]; SOW_ENTRIES] = sow_rows();

const fn sow_rows() -> [[u8; 2]; SOW_ENTRIES] {
    let mut t = [[0u8; 2]; SOW_ENTRIES];
    let mut m = 1;
    while m <= MAX_HOUSES {
        let cycle = 2 * m + 1;
        let mut s = 0;
        while s < 2 {
            let mut o = 0;
            while o < m {
                let first = SOW_OFFSET[m] + (s * m + o) * cycle;
                let mut k = 1;
                while k < cycle {
                    // Ring index r: 0..m-1 own houses, m own store, m+1..2m opponent's houses.
                    let r = (o + k) % cycle;
                    let mut c = t[first + k - 1];
                    if r < m {
                        c[0] += 1;
                    } else if r > m {
                        c[1] += 1;
                    }
                    t[first + k] = c;
                    k += 1;
                }
                o += 1;
            }
            s += 1;
        }
        m += 1;
    }
    t
}

/// Byte `b` of the 16 bins `w0`, `w1` (bin b is byte b % 8 of word b / 8); for b ≥ 16 some
/// byte of `w1` (callers ignore it).
#[inline(always)]
fn byte_of(w0: u64, w1: u64, b: usize) -> u8 {
    let w = if b < 8 { w0 } else { w1 };
    (w >> (8 * (b % 8))) as u8
}

/// Bit `i` set iff byte `i` of `x` is not zero (8 bits).
#[inline]
fn nonzero_byte_bits(x: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // High bit of each byte set iff the byte is not zero, without carries between bytes.
    let high = (((x & LOW7) + LOW7) | x) & !LOW7;
    // Gather bit 8i+7 into bit 56+i, then shift down.
    ((high >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// The legal actions of a position, at most 12 houses and `swap`.
pub type MoveList = ArrayVec<Move, { MAX_HOUSES + 1 }>;

impl Position {
    /// The starting position of a layout under a rule set: South to move, in the opening phase
    /// when the rules have opening rules.
    pub fn start(start: &Start, rules: &Rules) -> Position {
        let pits = start.pits();
        let mut p = Position {
            pits: [0; MAX_PITS],
            houses: start.houses() as u8,
            to_move: Side::South,
            over: false,
            phase: if rules.has_opening_rules() {
                Phase::Opening
            } else {
                Phase::Normal
            },
            rows: [0; 2],
        };
        p.pits[..pits.len()].copy_from_slice(&pits);
        p.recount();
        p
    }

    /// Validates a setup.
    ///
    /// # Errors
    /// [`SetupError`] when the pit count is not 2m+2 with 1 ≤ m ≤ 12, the board holds more than
    /// 255 seeds, a finished game has seeds in its houses, or the phase does not fit the side to
    /// move. A board whose houses are all empty is a finished game, with or without a side to
    /// move: a side given is kept as the side that would have moved ([`Position::side`], the
    /// view of the value), so that a finished position's text (which names that side, see
    /// `Display`) reads back the same; without one, South. A board without any seed is a
    /// finished game too (leftovers=nobody can remove them all, and the stores may have been
    /// empty).
    pub fn from_setup(setup: &Setup) -> Result<Position, SetupError> {
        let n = setup.pits.len();
        if !(4..=MAX_PITS).contains(&n) || !n.is_multiple_of(2) {
            return Err(SetupError::PitCount(n));
        }
        let m = (n - 2) / 2;
        let total: u32 = setup.pits.iter().map(|&x| x as u32).sum();
        if total > MAX_SEEDS {
            return Err(SetupError::TooManySeeds(total));
        }
        let mut pits = [0u8; MAX_PITS];
        pits[..n].copy_from_slice(&setup.pits);
        let houses_empty =
            pits[..m].iter().all(|&x| x == 0) && pits[m + 1..2 * m + 1].iter().all(|&x| x == 0);
        if setup.to_move.is_none() && !houses_empty {
            return Err(SetupError::OverWithSeeds);
        }
        // Every house empty: no one can sow, so the game is over under every rule and has no
        // opening phase left.
        let over = houses_empty;
        let to_move = setup.to_move.unwrap_or(Side::South);
        // A side to move without seeds (every house empty included) cannot sow: the game is
        // over under every end rule (the settling by the rules sweeps it), so it has no opening
        // phase left either.
        let mover_row = match to_move {
            Side::South => &pits[..m],
            Side::North => &pits[m + 1..2 * m + 1],
        };
        let blocked = mover_row.iter().all(|&x| x == 0);
        match (setup.phase, to_move, blocked) {
            (Phase::Normal, _, _) => {}
            (_, _, true) => {
                return Err(SetupError::Phase {
                    phase: setup.phase.tag().unwrap_or(""),
                    needs: "a game that is not over",
                })
            }
            (Phase::Opening | Phase::FirstTurn, Side::North, _) => {
                return Err(SetupError::Phase {
                    phase: setup.phase.tag().unwrap_or(""),
                    needs: "South to move",
                })
            }
            (Phase::PieChoice, Side::South, _) => {
                return Err(SetupError::Phase {
                    phase: "pie",
                    needs: "North to move",
                })
            }
            _ => {}
        }
        // A side given to a finished game is the side that would have moved (the view of the
        // position's value).
        let mut p = Position {
            pits,
            houses: m as u8,
            to_move,
            over,
            phase: setup.phase,
            rows: [0; 2],
        };
        p.recount();
        Ok(p)
    }

    /// Recomputes the cached row sums from the bins.
    fn recount(&mut self) {
        let m = self.houses();
        let sum = |r: &[u8]| r.iter().map(|&x| x as u32).sum::<u32>() as u8;
        self.rows = [sum(&self.pits[..m]), sum(&self.pits[m + 1..2 * m + 1])];
    }

    /// The unchecked form of this position; [`Position::from_setup`] gives it back (a finished
    /// game keeps the side that would have moved, so its value keeps its sign).
    pub fn to_setup(&self) -> Setup {
        Setup {
            pits: self.pits().to_vec(),
            to_move: Some(self.to_move),
            phase: self.phase,
        }
    }

    /// Houses a side (m).
    #[inline]
    pub fn houses(&self) -> usize {
        self.houses as usize
    }

    /// All pit counts in bin order (2m+2 of them).
    #[inline]
    pub fn pits(&self) -> &[u8] {
        &self.pits[..2 * self.houses() + 2]
    }

    /// The fixed-size bin array (bins past 2m+1 are always 0). For fast hashing and indexing.
    #[inline]
    pub fn bins(&self) -> &[u8; MAX_PITS] {
        &self.pits
    }

    /// Bin index of a side's house `h` (1..=m).
    ///
    /// # Panics
    /// If `house` is not in 1..=m.
    #[inline]
    pub fn bin_of(&self, side: Side, house: usize) -> usize {
        assert!(
            (1..=self.houses()).contains(&house),
            "no house {house}: houses are numbered 1 to {}",
            self.houses()
        );
        match side {
            Side::South => house - 1,
            Side::North => self.houses() + house,
        }
    }

    /// Bin index of a side's store.
    #[inline]
    pub fn store_bin(&self, side: Side) -> usize {
        match side {
            Side::South => self.houses(),
            Side::North => 2 * self.houses() + 1,
        }
    }

    /// Seeds in a side's house `h` (1..=m, that side's sowing order).
    ///
    /// # Panics
    /// If `h` is not in 1..=m.
    #[inline]
    pub fn house(&self, side: Side, house: usize) -> u8 {
        self.pits[self.bin_of(side, house)]
    }

    /// A side's row, houses 1..m in that side's sowing order.
    #[inline]
    pub fn row(&self, side: Side) -> &[u8] {
        let m = self.houses();
        match side {
            Side::South => &self.pits[..m],
            Side::North => &self.pits[m + 1..2 * m + 1],
        }
    }

    /// Seeds in a side's store.
    #[inline]
    pub fn store(&self, side: Side) -> u8 {
        self.pits[self.store_bin(side)]
    }

    /// Seeds in a side's houses.
    #[inline]
    pub fn row_seeds(&self, side: Side) -> u32 {
        self.rows[side.index()] as u32
    }

    /// Seeds in all houses (not the stores).
    #[inline]
    pub fn seeds_in_houses(&self) -> u32 {
        self.row_seeds(Side::South) + self.row_seeds(Side::North)
    }

    /// Seeds on the board, stores included.
    #[inline]
    pub fn total_seeds(&self) -> u32 {
        self.pits.iter().map(|&x| x as u32).sum()
    }

    /// The side to move, or `None` once the game is over and swept.
    ///
    /// A position read from text or made with a row already empty is not swept: it still has
    /// a side to move, though under the standard end rule it has no legal action. Whether the
    /// game is over depends on the rules (the mover-blocked end rule plays on), so
    /// [`Position::settle`] it under them first, or ask [`Position::status`]: a loop `while
    /// pos.to_move().is_some()` over an unsettled position may meet an empty
    /// [`Position::legal_moves`].
    #[inline]
    pub fn to_move(&self) -> Option<Side> {
        if self.over {
            None
        } else {
            Some(self.to_move)
        }
    }

    /// The side to move even when the game is over (then: the side that would have moved).
    #[inline]
    pub fn side(&self) -> Side {
        self.to_move
    }

    /// Whether the game has been ended and swept (not whether the rules end it now: see
    /// [`Position::to_move`] and [`Position::settle`]).
    #[inline]
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// The opening phase.
    #[inline]
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Store difference, `side`'s store minus the other's.
    #[inline]
    pub fn store_diff(&self, side: Side) -> i32 {
        self.store(side) as i32 - self.store(side.opposite()) as i32
    }

    /// Why the game is over under `rules`, if it is, whether or not it has been swept yet. A
    /// parsed position can be over by the rules without being swept; [`Position::settle`] sweeps
    /// it.
    pub fn end_reason(&self, rules: &Rules) -> Option<EndReason> {
        self.end_reason_with(rules, self.rows[0] == 0, self.rows[1] == 0)
    }

    /// Why the game is over under `rules` although the position carries an opening phase tag
    /// (`opening`, `first-turn`, `pie`): a tag belongs to a game going on. The parse refuses a
    /// tag only where the game is over under every rule (the side to move has no seeds); front
    /// ends that know the rules refuse these too (`0,1,1,0 N pie`: South's row is empty, which
    /// ends the game under the standard end rule but not under `mover-blocked`). `None` if the
    /// position has no tag or its game goes on.
    pub fn tag_on_finished_game(&self, rules: &Rules) -> Option<EndReason> {
        if self.phase == Phase::Normal {
            return None;
        }
        self.end_reason(rules)
    }

    /// Why the position's opening phase tag does not fit `rules`, if it does not: the tag
    /// belongs to opening rules that `rules` lacks ([`Rules::phase_needs`]), or the game is over
    /// under `rules` ([`Position::tag_on_finished_game`]), checked in that order. Every front
    /// end refuses such a position (or a record that starts there): a game going on under those
    /// rules never reaches it, and a record of it would be written back with a start that does
    /// not read. `None` if the position has no tag or the tag fits.
    pub fn phase_tag_problem(&self, rules: &Rules) -> Option<PhaseTagProblem> {
        let tag = self.phase.tag()?;
        if let Some(needs) = rules.phase_needs(self.phase) {
            return Some(PhaseTagProblem::NeedsRules { tag, needs });
        }
        self.tag_on_finished_game(rules)
            .map(|why| PhaseTagProblem::GameOver { tag, why })
    }

    /// Ends and sweeps the game after a sowing if it is over; the rare path of
    /// [`Position::sow_unchecked`].
    #[cold]
    #[inline(never)]
    fn end_after_sowing(
        &mut self,
        rules: &Rules,
        south_empty: bool,
        north_empty: bool,
    ) -> Option<EndReason> {
        let reason = self.end_reason_with(rules, south_empty, north_empty)?;
        self.finish(rules, reason);
        Some(reason)
    }

    /// [`Position::end_reason`] given whether South's and North's rows are empty.
    #[inline]
    fn end_reason_with(
        &self,
        rules: &Rules,
        south_empty: bool,
        north_empty: bool,
    ) -> Option<EndReason> {
        if rules.majority_end {
            let total = self.total_seeds();
            for side in [Side::South, Side::North] {
                if 2 * self.store(side) as u32 > total {
                    return Some(EndReason::Majority(side));
                }
            }
        }
        let mover_empty = if self.to_move == Side::South {
            south_empty
        } else {
            north_empty
        };
        if mover_empty {
            return Some(match rules.end {
                EndRule::RowEmpty => EndReason::RowEmpty(self.to_move),
                EndRule::MoverBlocked => EndReason::MoverBlocked(self.to_move),
            });
        }
        if rules.end == EndRule::RowEmpty {
            if south_empty {
                return Some(EndReason::RowEmpty(Side::South));
            }
            if north_empty {
                return Some(EndReason::RowEmpty(Side::North));
            }
        }
        None
    }

    /// Status under `rules`: who is to move, or the final score (the sweep applied if the
    /// position has not been swept yet).
    pub fn status(&self, rules: &Rules) -> Status {
        if self.over {
            return Status::Over([self.store(Side::South), self.store(Side::North)]);
        }
        match self.end_reason(rules) {
            None => Status::ToMove(self.to_move),
            Some(reason) => {
                let mut p = *self;
                p.finish(rules, reason);
                Status::Over([p.store(Side::South), p.store(Side::North)])
            }
        }
    }

    /// Final stores `[south, north]` if the game is over under `rules`.
    pub fn score(&self, rules: &Rules) -> Option<[u8; 2]> {
        match self.status(rules) {
            Status::Over(s) => Some(s),
            Status::ToMove(_) => None,
        }
    }

    /// Ends and sweeps the game if it is over under `rules` but not swept (e.g. a parsed
    /// position with an empty row). Returns the reason if it did.
    pub fn settle(&mut self, rules: &Rules) -> Option<EndReason> {
        if self.over {
            return None;
        }
        let reason = self.end_reason(rules)?;
        self.finish(rules, reason);
        Some(reason)
    }

    /// Applies the sweep for `reason` and marks the game over.
    fn finish(&mut self, rules: &Rules, reason: EndReason) {
        let m = self.houses();
        let south: u32 = self.row_seeds(Side::South);
        let north: u32 = self.row_seeds(Side::North);
        let [to_south, to_north] = reason.sweep(rules, [south, north]);
        for b in 0..m {
            self.pits[b] = 0;
            self.pits[m + 1 + b] = 0;
        }
        self.pits[m] += to_south as u8;
        self.pits[2 * m + 1] += to_north as u8;
        self.rows = [0; 2];
        self.over = true;
        self.phase = Phase::Normal;
    }

    /// Bit `h-1` set for every house `h` of the side to move that holds seeds. 0 when the game is
    /// over (swept). Does not apply an unswept end: call [`Position::settle`] on parsed
    /// positions first.
    #[inline]
    pub fn legal_houses(&self) -> u16 {
        if self.over {
            return 0;
        }
        let m = self.houses();
        let base = self.to_move.index() * (m + 1);
        // Bit b of `bits` says whether bin b holds seeds.
        let bits = if 2 * m + 2 <= 16 {
            nonzero_byte_bits(self.word(0)) | nonzero_byte_bits(self.word(1)) << 8
        } else {
            let w = self.words();
            let mut bits = 0u64;
            for (i, &x) in w.iter().enumerate() {
                bits |= nonzero_byte_bits(x) << (8 * i);
            }
            bits
        };
        ((bits >> base) as u16) & ((1u16 << m) - 1)
    }

    /// Whether `swap` is a legal action now (pie rule, North's first action).
    #[inline]
    pub fn can_swap(&self, rules: &Rules) -> bool {
        rules.pie && !self.over && self.phase == Phase::PieChoice && self.to_move == Side::North
    }

    /// The legal actions under `rules`, houses in increasing order, then `swap` if allowed.
    /// Empty when the game is over by the rules, swept or not.
    pub fn legal_moves(&self, rules: &Rules) -> MoveList {
        let mut list = MoveList::new();
        if self.over || self.end_reason(rules).is_some() {
            return list;
        }
        let mask = self.legal_houses();
        for h in 0..self.houses() {
            if mask & (1 << h) != 0 {
                list.push(Move::Sow(h as u8 + 1));
            }
        }
        if self.can_swap(rules) {
            list.push(Move::Swap);
        }
        list
    }

    /// Checks that `mv` is legal under `rules`.
    ///
    /// # Errors
    /// [`MoveError`] saying why not.
    pub fn check(&self, rules: &Rules, mv: Move) -> Result<(), MoveError> {
        if self.over || self.end_reason(rules).is_some() {
            return Err(MoveError::GameOver);
        }
        match mv {
            Move::Swap => {
                if self.can_swap(rules) {
                    Ok(())
                } else {
                    Err(MoveError::SwapNotAllowed)
                }
            }
            Move::Sow(h) => {
                if h == 0 || h as usize > self.houses() {
                    return Err(MoveError::NoSuchHouse {
                        house: h,
                        houses: self.houses(),
                    });
                }
                if self.pits[self.bin_of(self.to_move, h as usize)] == 0 {
                    return Err(MoveError::EmptyHouse(h));
                }
                Ok(())
            }
        }
    }

    /// Plays a legal action. A [`Move::Swap`] (pie rule) leaves the board as it is, with North
    /// still to move: the persons exchange sides, see [`Move::Swap`].
    ///
    /// A position whose game is over under `rules` but not yet swept (as written by hand or
    /// parsed: `0,0,0,5,1,1,1,0 S`, South's row empty) has no legal action: it gives
    /// [`MoveError::GameOver`] and is left as it is; [`Position::settle`] sweeps it, and
    /// [`Position::status`] gives its final score either way.
    ///
    /// # Errors
    /// [`MoveError`] if the action is illegal; the position is then unchanged.
    pub fn play(&mut self, rules: &Rules, mv: Move) -> Result<Outcome, MoveError> {
        self.check(rules, mv)?;
        Ok(self.play_unchecked(rules, mv))
    }

    /// Plays an action known to be legal (see [`Position::legal_moves`]).
    ///
    /// # Panics
    /// Debug builds assert that the action is legal. In release builds an illegal action is
    /// memory-safe but its result unspecified: it may panic (`Sow(0)`), or leave a position
    /// that breaks [`Position`]'s invariants (a house past m sows from another pit; its
    /// counts may no longer sum to the seeds of the game, and its text may not parse back),
    /// or report what did not happen (`Swap` without the pie rule says `swapped`). Use
    /// [`Position::play`] for actions that come from outside.
    #[inline]
    pub fn play_unchecked(&mut self, rules: &Rules, mv: Move) -> Outcome {
        match mv {
            Move::Sow(h) => self.sow_unchecked(rules, h as usize),
            Move::Swap => {
                debug_assert!(self.can_swap(rules));
                self.phase = Phase::Normal;
                Outcome {
                    swapped: true,
                    last_bin: usize::MAX,
                    ..Outcome::default()
                }
            }
        }
    }

    /// Sows house `house` (1..=m) of the side to move: the hot path of every search.
    ///
    /// Seeds go one per pit counter-clockwise, into the mover's store but never the opponent's;
    /// 2m+1 seeds or more lap the board and refill the origin house. Then the capture, the extra
    /// turn, the end of the game and the sweep are applied under `rules`.
    ///
    /// # Panics
    /// Debug builds assert that `house` is in 1..=m, holds seeds and that the game is not
    /// over; in release builds a breach gives an unspecified result, as for
    /// [`Position::play_unchecked`] (a panic, or a position that breaks the invariants).
    #[inline(always)]
    pub fn sow_unchecked(&mut self, rules: &Rules, house: usize) -> Outcome {
        let src = *self;
        self.sow_from(&src, rules, house)
    }

    /// The position after sowing `house` (1..=m) of the side to move, and what the sowing did:
    /// [`Position::sow_unchecked`] on a copy, leaving `self` unchanged. The fastest way to make
    /// a child position in a search (the copy is never read back).
    ///
    /// # Panics
    /// As [`Position::sow_unchecked`].
    #[inline(always)]
    pub fn sown(&self, rules: &Rules, house: usize) -> (Position, Outcome) {
        let mut child = *self;
        let out = child.sow_from(self, rules, house);
        (child, out)
    }

    /// [`Position::sow_unchecked`] written into `child`, a copy of `self` made by the caller
    /// (e.g. in its place in a list of children), leaving `self` unchanged. Reads the position
    /// before the sowing from `self`, so the copy is only written: a search that makes its
    /// children in place this way never reads a child's fresh bytes back as wider words (a
    /// store-forwarding stall on x86).
    ///
    /// # Panics
    /// As [`Position::sow_unchecked`]; debug builds also assert that `child` equals `self`.
    #[inline(always)]
    pub fn sow_into(&self, child: &mut Position, rules: &Rules, house: usize) -> Outcome {
        child.sow_from(self, rules, house)
    }

    /// [`Position::sow_unchecked`] on `src`, written into `self` (a copy of `src`). Reading
    /// the position before the sowing from `src` rather than from `self` keeps loads away from
    /// the copy's fresh stores (perft copies a position, then sows the copy).
    #[inline(always)]
    pub(crate) fn sow_from(&mut self, src: &Position, rules: &Rules, house: usize) -> Outcome {
        debug_assert!(self == src);
        debug_assert!(!src.over);
        debug_assert!((1..=src.houses()).contains(&house));
        #[cfg(debug_assertions)]
        let total_before = src.total_seeds();
        let m = src.houses();
        let side = src.to_move;
        let s = side.index();
        let base = s * (m + 1);
        let store = base + m;
        let o = house - 1;
        let origin = base + o;
        let n = src.pits[origin];
        debug_assert!(n > 0);
        let cycle = 2 * m + 1;
        let (laps, rem) = if n as usize >= cycle {
            ((n as usize / cycle) as u8, n as usize % cycle)
        } else {
            (0, n as usize)
        };
        // The sowing as one wrapping addition per 8-bin word (see `SOW_ONES`): `rem` seeds out
        // of the origin, one into each of the next `rem` bins of the mover's ring (see `RING`).
        // Every bin ends within 0..=255 (the board holds at most 255 seeds), so the wrapping
        // word arithmetic is exact.
        let idx = SOW_OFFSET[m] + (s * m + o) * cycle + rem;
        let delta = &SOW_ONES[idx];
        // The two words of a board of at most 7 houses, kept in registers for the capture test.
        let mut small = None;
        if 2 * m + 2 <= 16 {
            let w0 = src.word(0).wrapping_add(delta[0]);
            let w1 = src.word(1).wrapping_add(delta[1]);
            self.set_word(0, w0);
            self.set_word(1, w1);
            small = Some((w0, w1));
        } else {
            for (i, d) in delta.iter().enumerate().take(3) {
                self.set_word(i, src.word(i).wrapping_add(*d));
            }
            let top = u16::from_le_bytes([src.pits[24], src.pits[25]]);
            let top = top.wrapping_add(delta[3] as u16).to_le_bytes();
            self.pits[24] = top[0];
            self.pits[25] = top[1];
        }
        if laps > 0 {
            // 2m+1 seeds or more: the origin still holds the whole laps; they go one a lap
            // into every pit but the opponent's store, the origin included.
            self.sow_laps(origin, laps);
            small = None;
        }
        // Seeds in the rows, from the cached sums and the table.
        let [south_row, north_row] = src.rows;
        let (own_row, opp_row) = if s == 0 {
            (south_row, north_row)
        } else {
            (north_row, south_row)
        };
        let lap_row = laps.wrapping_mul(m as u8);
        let [to_own, to_opp] = SOW_ROWS[idx];
        let own_row = own_row
            .wrapping_sub(n)
            .wrapping_add(to_own)
            .wrapping_add(lap_row);
        let opp_row = opp_row.wrapping_add(to_opp).wrapping_add(lap_row);
        let last = RING_BINS[m][s][o + rem] as usize;
        // Capture: last seed in an own house that was empty. Without branches: the outcome of
        // a sowing is hard to predict.
        let opp = (2 * m).wrapping_sub(last).min(MAX_PITS - 1);
        let (in_last, opposite) = match small {
            Some((w0, w1)) => (byte_of(w0, w1, last), byte_of(w0, w1, opp)),
            None => (self.pits[last], self.pits[opp]),
        };
        let capture = (last.wrapping_sub(base) < m)
            & (in_last == 1)
            & ((opposite > 0) | (rules.capture == CaptureRule::Empty));
        let cap_mask = 0u8.wrapping_sub(capture as u8);
        let captured = opposite.wrapping_add(1) & cap_mask;
        self.pits[last] &= !cap_mask;
        self.pits[opp] &= !cap_mask;
        self.pits[store] = self.pits[store].wrapping_add(captured);
        let own_row = own_row.wrapping_sub(capture as u8);
        let opp_row = opp_row.wrapping_sub(opposite & cap_mask);
        let (south_row, north_row) = if s == 0 {
            (own_row, opp_row)
        } else {
            (opp_row, own_row)
        };
        self.rows = [south_row, north_row];
        let south_empty = south_row == 0;
        let north_empty = north_row == 0;
        let extra_turn =
            last == store && (rules.first_move_extra_turn | (src.phase != Phase::Opening));
        let mut out = Outcome {
            sown: n,
            last_bin: last,
            extra_turn,
            captured,
            ..Outcome::default()
        };
        self.to_move = if extra_turn { side } else { side.opposite() };
        if src.phase != Phase::Normal {
            self.phase = match (src.phase, self.to_move) {
                (Phase::Normal, _) => Phase::Normal,
                (Phase::Opening | Phase::FirstTurn, Side::South) => Phase::FirstTurn,
                (Phase::Opening | Phase::FirstTurn, Side::North) => {
                    if rules.pie {
                        Phase::PieChoice
                    } else {
                        Phase::Normal
                    }
                }
                (Phase::PieChoice, _) => Phase::Normal,
            };
        }
        if south_empty | north_empty | rules.majority_end {
            out.ended = self.end_after_sowing(rules, south_empty, north_empty);
            if out.ended.is_some() {
                out.left = [south_row, north_row];
            }
        }
        #[cfg(debug_assertions)]
        {
            debug_assert!(
                self.total_seeds() == total_before || rules.leftovers == LeftoverRule::Nobody,
                "seeds not conserved"
            );
            let mut check = *self;
            check.recount();
            debug_assert_eq!(check.rows, self.rows, "row sums out of date");
        }
        out
    }

    /// Adds `laps` seeds to every pit but the opponent's store of the side to move, taking them
    /// from `origin` (which holds `laps` times 2m+1 and ends with `laps`).
    #[cold]
    #[inline(never)]
    fn sow_laps(&mut self, origin: usize, laps: u8) {
        let m = self.houses();
        let opp_store = if self.to_move == Side::South {
            2 * m + 1
        } else {
            m
        };
        debug_assert_eq!(self.pits[origin] as usize, laps as usize * (2 * m + 1));
        self.pits[origin] = 0;
        for (b, p) in self.pits[..2 * m + 2].iter_mut().enumerate() {
            if b != opp_store {
                *p += laps;
            }
        }
    }

    /// Bins `8i..8i+8` as a little-endian word (i < 3).
    #[inline(always)]
    fn word(&self, i: usize) -> u64 {
        u64::from_le_bytes(self.pits[8 * i..8 * i + 8].try_into().expect("8 bins"))
    }

    /// Stores a word of [`Position::word`].
    #[inline(always)]
    fn set_word(&mut self, i: usize, w: u64) {
        self.pits[8 * i..8 * i + 8].copy_from_slice(&w.to_le_bytes());
    }

    /// The bins as four little-endian words: bin `b` is byte `b % 8` of word `b / 8`.
    #[inline(always)]
    fn words(&self) -> [u64; 4] {
        let p = &self.pits;
        [
            self.word(0),
            self.word(1),
            self.word(2),
            u16::from_le_bytes([p[24], p[25]]) as u64,
        ]
    }

    /// Returns the position after `mv`, or an error, leaving `self` unchanged.
    ///
    /// # Errors
    /// [`MoveError`] if the action is illegal.
    pub fn after(&self, rules: &Rules, mv: Move) -> Result<Position, MoveError> {
        let mut p = *self;
        p.play(rules, mv)?;
        Ok(p)
    }

    /// The same position seen from the other side: rows and stores exchanged, the other side to
    /// move. The value (side to move minus opponent) of the result equals that of `self`.
    /// Opening phases are dropped (they are tied to South).
    pub fn flipped(&self) -> Position {
        let m = self.houses();
        let mut pits = [0u8; MAX_PITS];
        pits[..=m].copy_from_slice(&self.pits[m + 1..2 * m + 2]);
        pits[m + 1..2 * m + 2].copy_from_slice(&self.pits[..=m]);
        Position {
            pits,
            houses: self.houses,
            to_move: self.to_move.opposite(),
            over: self.over,
            phase: Phase::Normal,
            rows: [self.rows[1], self.rows[0]],
        }
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({self})")
    }
}

/// Bin-order counts joined by commas, then ` S` or ` N`, then the phase tag (`opening`,
/// `first-turn`, `pie`) unless the phase is normal: `4,4,4,4,4,4,0,4,4,4,4,4,4,0 S`.
///
/// A finished game keeps the letter of the side that would have moved ([`Position::side`]):
/// `0,0,0,0,0,0,21,0,0,0,0,0,0,27 N`. Its value is given from that side's view (its store minus
/// the other's), so the text must name the side to read back as the same position: without a
/// letter, [`FromStr`] takes South, and the value would change sign.
impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.pits().iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{p}")?;
        }
        write!(f, " {}", self.side().letter())?;
        if !self.over {
            if let Some(tag) = self.phase.tag() {
                write!(f, " {tag}")?;
            }
        }
        Ok(())
    }
}

/// Parses the notation written by `Display`. White space around the commas is allowed; the side
/// to move is its letter (`S`, `N`) or its name (`South`, `North`), and the side and the phase
/// tag may be in either case. Error columns count characters from 1.
///
/// The text carries no rules, so the phase tag is read whatever the rules of the game will be:
/// check it with [`Rules::allows_phase`] (a `pie` tag under rules without the pie rule is a
/// position of no such game). The other way round, a position without a tag is in the normal
/// phase, past the opening: under the pie rule, `4,4,4,4,4,4,0,4,4,4,4,4,4,0 S` is a position
/// reached in the middle of a game, where North may not swap; the start of a pie-rule game is
/// written `... S opening` (as [`Position::start`] makes it and `Display` writes it).
impl FromStr for Position {
    type Err = ParsePositionError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.trim().is_empty() {
            return Err(ParsePositionError::Empty);
        }
        let col = |byte: usize| s[..byte].chars().count() + 1;
        let bad_count = |at: usize, text: &str| ParsePositionError::BadCount {
            at: col(at),
            text: text.to_string(),
        };
        // Comma-separated counts; the last one may be followed by the side and the phase.
        let mut pits = Vec::new();
        let mut start = 0;
        let tail;
        loop {
            let (tok, last) = match s[start..].find(',') {
                Some(i) => (&s[start..start + i], false),
                None => (&s[start..], true),
            };
            let lead = tok.len() - tok.trim_start().len();
            let at = start + lead;
            let body = &tok[lead..];
            let digits = if last {
                body.find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(body.len())
            } else {
                body.trim_end().len()
            };
            let text = &body[..digits];
            if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
                // A count, then the side, then a comma (`1,0,1,0 S,`): the comma is at fault.
                if !last {
                    let n = body.find(|c: char| !c.is_ascii_digit()).unwrap_or(0);
                    let after = &body[n..];
                    if n > 0
                        && after.starts_with(char::is_whitespace)
                        && after
                            .split_whitespace()
                            .next()
                            .and_then(|w| w.parse::<Side>().ok())
                            .is_some()
                    {
                        return Err(ParsePositionError::Trailing {
                            at: col(start + tok.len()),
                            text: ",".to_string(),
                        });
                    }
                }
                // The counts, a comma, then the side (`1,0,1,0, S`): the comma is at fault
                // (tester 63: "'S' is not a seed count").
                if last && !pits.is_empty() {
                    let first = body.split_whitespace().next().unwrap_or("");
                    if first.parse::<Side>().is_ok() {
                        return Err(ParsePositionError::CommaBeforeSide { at: col(start - 1) });
                    }
                }
                let word = body.split([' ', '\t', '\n', '\r']).next().unwrap_or("");
                let word = if last || word.is_empty() {
                    word
                } else {
                    body.trim_end()
                };
                return Err(bad_count(at, word));
            }
            match text.parse::<u32>() {
                Ok(v) if v <= 255 => pits.push(v as u8),
                _ => return Err(bad_count(at, text)),
            }
            if last {
                tail = (at + digits, &body[digits..]);
                break;
            }
            start += tok.len() + 1;
        }
        // The words after the counts, with their columns.
        let (tail_at, tail_text) = tail;
        // Something right after the last count's digits, with no space between (`4;4`).
        let glued = tail_text.starts_with(|c: char| !c.is_whitespace());
        let mut words = Vec::new();
        let mut rest = tail_text;
        let mut off = tail_at;
        loop {
            let skip = rest.len() - rest.trim_start().len();
            rest = &rest[skip..];
            off += skip;
            if rest.is_empty() {
                break;
            }
            let len = rest.find(char::is_whitespace).unwrap_or(rest.len());
            words.push((col(off), &rest[..len]));
            rest = &rest[len..];
            off += len;
        }
        let mut to_move = None;
        let mut phase = Phase::Normal;
        let mut it = words.into_iter();
        if let Some((at, w)) = it.next() {
            // The letter, or the side's name as `Display` writes it (`South`, any case).
            to_move = Some(match w.parse::<Side>().ok() {
                Some(side) => side,
                None => {
                    let first = w.chars().next().unwrap_or(' ');
                    // Counts separated by spaces (`1 0 1 0 S`): a comma is missing.
                    if !glued && !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()) {
                        return Err(ParsePositionError::MissingComma {
                            at,
                            text: w.to_string(),
                        });
                    }
                    if glued && first.is_ascii_punctuation() {
                        return Err(ParsePositionError::BadSeparator {
                            at,
                            text: first.to_string(),
                        });
                    }
                    return Err(ParsePositionError::BadSide {
                        at,
                        text: w.to_string(),
                    });
                }
            });
        }
        if let Some((at, w)) = it.next() {
            // Read in either case, as the side letter is.
            phase = Phase::from_tag(&w.to_ascii_lowercase()).ok_or_else(|| {
                ParsePositionError::Trailing {
                    at,
                    text: w.to_string(),
                }
            })?;
        }
        if let Some((at, w)) = it.next() {
            // Only a phase tag can come before (tester 95: `S opening pie` said only 'pie'
            // may follow).
            return Err(ParsePositionError::AfterPhaseTag {
                at,
                text: w.to_string(),
            });
        }
        Ok(Position::from_setup(&Setup {
            pits,
            to_move,
            phase,
        })?)
    }
}

impl Serialize for Position {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Position {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}
