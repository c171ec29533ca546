//! # kalah-egdb
//!
//! Kalah endgame databases. A Kalah position's value depends only on the seeds in the houses and
//! the side to move: the stores only shift the final score. So every arrangement of k seeds over
//! the 2m houses can be solved once and stored, one layer per k (Irving, Donkers & Uiterwijk 2000
//! built them to 20 seeds; Rawlings 2015 to 34).
//!
//! ## What is stored
//!
//! For a board of m houses a side and a rule set, layer k holds, for every arrangement of k seeds
//! over the 2m houses **from the side to move's view** (his houses 1..m first, then the
//! opponent's houses 1..m, each in its owner's sowing order; see [`index`]), the exact **future
//! gain** of the side to move under perfect play: the final store difference (mover minus
//! opponent) minus the current one. One table serves both sides. Arrangements are indexed by
//! their combinatorial rank (stars and bars), unreachable ones included, so no existence test is
//! needed. Arrangements whose game is already over are not searched: their slot holds the sweep's
//! value, computed directly, and [`Egdb::probe`] answers `None` for them.
//!
//! Only the capture, end and leftover rules change values. The pie and Manchester rules concern
//! the first moves only: databases hold Normal-phase positions and serve those rule sets too.
//! The majority end makes the outcome depend on the stores: such rules are refused
//! ([`EgdbError::StoreDependentRules`]) and must be searched.
//!
//! ## Build order and termination
//!
//! Layers are built in increasing k. A move's children lie in lower layers except for a sowing
//! that reaches no store and captures nothing: its child keeps k. Such a move takes the n seeds
//! of the mover's house h and drops them into his houses h+1..h+n (n ≤ m−h), then the opponent
//! moves. Define the potential of an arrangement
//!
//! P = Σ_{h=1..m} h·(mover's house h) + Σ_{h=1..m} h·(opponent's house h),
//!
//! which does not depend on whose view is taken (the flip exchanges the two sums). Such a move
//! raises the first sum by (h+1)+…+(h+n) − n·h = n(n+1)/2 ≥ 1 and leaves the opponent's row
//! alone (a capture with an empty opposite house under the standard rule changes nothing either).
//! So **every child has either fewer seeds in the houses, or the same k and a strictly larger P**.
//! Within layer k, P is bounded by k·m, so every chain of same-layer children is shorter than
//! k·(m−1)+1 steps: the game graph restricted to a layer is acyclic.
//!
//! The build therefore solves a layer by memoised recursion: arrangements are visited in rank
//! order (chunks of 65 536 in parallel with rayon), and an arrangement whose same-layer child is
//! not known yet solves that child first. Each recursive call is on a same-layer child, so P
//! strictly increases along the call stack: the depth stays below k·(m−1)+1 and the recursion
//! terminates; every entry is computed from children that are final (lower layers are complete,
//! same-layer children are solved before being read). Entries are atomic bytes with −128 meaning
//! "not known yet"; two threads may solve the same entry, and both store the same value (the
//! value is a function of the arrangement), so the result does not depend on scheduling — the
//! files are identical from run to run. Solving in decreasing P would be the explicit
//! equivalent, but would visit a layer out of rank order.
//!
//! The build is bound by memory latency (children's entries are scattered over the tables), so
//! arrangements are expanded in batches of 16: the children of all sixteen are generated and
//! their entries prefetched before any is read. Generating a child is table-driven: a sowing of
//! n seeds from house h is one vector add of a precomputed increment (which also empties the
//! house), and a rank takes one lookup a slot over suffix sums, of the child or of its flip
//! without building it (`docs/bench/egdb.md` has the measurements: 1.35–1.45 times fewer CPU
//! seconds than byte-by-byte sowing and two lookups a slot).
//!
//! ## Values
//!
//! One signed byte per arrangement ([`file::ENCODING_BYTE`]): the gain lies in −k..=k, so a byte
//! serves every layer up to [`MAX_LAYER_SEEDS`], and a probe is one load. Measured against 4 bits
//! with an escape (15 values and an exception list): over all arrangements (unreachable ones
//! included) the gains spread widely — in Kalah(6,·) layer 20, 28.8 % of the entries fall outside
//! even the best window of 15 consecutive values — so layers 0..=20 would take 2.6 times the
//! space of bytes, and be slower to read. `docs/BENCHMARKS.md` gives the figures.
//!
//! ## Files
//!
//! One file per layer, `ROOT/m6-standard-row-empty-owner/k024.egdb` (see [`file`](mod@file)): a versioned,
//! checksummed header, then the values in rank order. Written to a temporary file and renamed;
//! opened through a memory map. Opening checks each header and file length only (cheap: a solve
//! starts at once); the payload checksums are checked by `verify` and on request
//! ([`Egdb::open_checked`], [`Egdb::check_checksums`]), and by a build before it resumes.
//!
//! ## Example
//!
//! Build the layers of up to 6 seeds of Kalah(3,·) under the standard rules, open them and probe
//! a position (`kalah egdb build --houses 3 --max-seeds 6` and `kalah egdb probe` do the same):
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use kalah_core::{Position, Rules};
//! use kalah_egdb::{BuildPlan, Egdb};
//!
//! // A fresh directory of the `tempfile` crate; any directory of your own will do.
//! let root = tempfile::tempdir()?;
//! let rules = Rules::default();
//! let plan = BuildPlan { root: root.path().to_path_buf(), houses: 3, rules, max_seeds: 6, threads: Some(1) };
//! let report = plan.run(&AtomicBool::new(false), &|_event| {})?;
//! println!("{report:?}");
//! let db = Egdb::open(root.path(), 3, &rules)?.expect("layers 0..=6 were just built");
//! assert_eq!(db.max_seeds(), 6);
//!
//! // South sows house 1 into its empty house 2 (North's house 2 opposite is empty: no capture),
//! // or house 3 into the store and then house 1. Either way North's only move, house 3, ends in
//! // its store and empties North's row: South sweeps 2 seeds, North has 1. Gain +1 for South.
//! let pos: Position = "1,0,1,0,0,0,1,0 S".parse()?;
//! assert_eq!(db.probe(&pos, &rules), Some(1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

pub mod build;
pub mod file;
mod game;

/// Calls `f::<M>(args)` with the const `M` equal to the runtime board size `m` (1..=12).
#[macro_export]
#[doc(hidden)]
macro_rules! dispatch_m {
    ($m:expr, $f:ident ( $($arg:expr),* )) => {
        match $m {
            1 => $f::<1>($($arg),*),
            2 => $f::<2>($($arg),*),
            3 => $f::<3>($($arg),*),
            4 => $f::<4>($($arg),*),
            5 => $f::<5>($($arg),*),
            6 => $f::<6>($($arg),*),
            7 => $f::<7>($($arg),*),
            8 => $f::<8>($($arg),*),
            9 => $f::<9>($($arg),*),
            10 => $f::<10>($($arg),*),
            11 => $f::<11>($($arg),*),
            12 => $f::<12>($($arg),*),
            _ => unreachable!("houses checked to be 1..=12"),
        }
    };
}
pub mod index;
mod solve;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::OnceLock;

use kalah_core::{LeftoverRule, Phase, Position, Rules};
use memmap2::Mmap;
use rayon::prelude::*;

pub use build::{BuildEvent, BuildLock, BuildPlan, BuildReport};
pub use index::Indexer;

use crate::file::{LayerHeader, HEADER_LEN};
use crate::game::{Arr, Game};
use crate::index::{successor, MAX_SLOTS};
use crate::solve::{Expanded, Finished, Solver};

/// Largest layer (seeds in the houses) a database may have: values must fit a signed byte.
pub const MAX_LAYER_SEEDS: u32 = 120;

/// The most worker threads of a build or a verify ([`BuildPlan::threads`],
/// [`Egdb::verify`]): more are refused with [`EgdbError::Threads`] before any work (tens of
/// thousands take minutes to fail to start, and past the cores they only slow the work down).
pub const MAX_THREADS: usize = 256;

/// A pool of `threads` worker threads (`None`: one per core; 0 counts as 1).
///
/// # Errors
/// [`EgdbError::Threads`] for more than [`MAX_THREADS`] threads, or if they cannot be started.
pub(crate) fn worker_pool(threads: Option<usize>) -> Result<rayon::ThreadPool, EgdbError> {
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        if n > MAX_THREADS {
            return Err(EgdbError::Threads(format!(
                "{n} threads asked for, at most {MAX_THREADS}"
            )));
        }
        pool = pool.num_threads(n.max(1));
    }
    pool.build().map_err(|e| EgdbError::Threads(e.to_string()))
}

/// How the messages of a damaged layer file ([`EgdbError::Truncated`], [`EgdbError::TooLong`],
/// [`EgdbError::Corrupt`]) end: a build replaces such a file itself (it says "damaged, ...
/// building it again"), so nothing needs deleting. A front end that knows the whole build
/// command (board, rules, directory) may put it in place of this text.
pub const REBUILD_ADVICE: &str = "build it again (`kalah egdb build` replaces it)";

/// How the message of something in a layer's place that a build leaves alone ends: what is not
/// a regular file ([`EgdbError::NotAFile`]: a directory, a FIFO, a device, a broken link) or a
/// whole layer file of another board, rule set or layer ([`EgdbError::Mismatch`]); it goes
/// first. A front end that knows the whole build command may put it in
/// place of this text.
pub const DELETE_FIRST_ADVICE: &str =
    "a build leaves it alone: move it away or delete it, then build it again (`kalah egdb build`)";

/// What is wrong with a file of [`EgdbError::Mismatch`], without its path or the advice.
fn mismatch_what(found: &str, expected: &str) -> String {
    format!(
        "holds {found}, but its name and place say {expected} (a file copied or moved by hand?)"
    )
}

/// How a bad layer file is mended ([`EgdbError::message_with`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repair {
    /// A build replaces the file itself: truncated, too long or corrupt
    /// ([`REBUILD_ADVICE`]).
    Rebuild,
    /// A build leaves it alone, so it is moved away or deleted first: it is not a regular file
    /// ([`DELETE_FIRST_ADVICE`]), or its checksums hold though its values are impossible
    /// ([`Egdb::repair`]).
    DeleteFirst,
}

/// Whether `path` is a symbolic link (not followed).
fn is_symlink(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// The advice of [`EgdbError`]'s own messages.
fn default_advice(_: usize, repair: Repair) -> Option<String> {
    Some(
        match repair {
            Repair::Rebuild => REBUILD_ADVICE,
            Repair::DeleteFirst => DELETE_FIRST_ADVICE,
        }
        .to_string(),
    )
}

/// Errors opening, building or verifying databases.
#[derive(Debug, thiserror::Error)]
pub enum EgdbError {
    /// An I/O error on a named file.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// The file does not start with the layer magic bytes: a build leaves it alone.
    #[error("{}", self.message_with(&mut default_advice))]
    NotADatabase {
        /// The file.
        path: String,
    },
    /// The file has another format version: a build leaves it alone.
    #[error("{}", self.message_with(&mut default_advice))]
    Version {
        /// The file.
        path: String,
        /// Version in the file.
        found: u32,
        /// The newest version this crate reads ([`file::FORMAT_VERSION`]).
        expected: u32,
    },
    /// The file is shorter than its header says.
    #[error("{}", self.message_with(&mut default_advice))]
    Truncated {
        /// The file.
        path: String,
        /// Expected length in bytes.
        expected: u64,
        /// Actual length in bytes.
        found: u64,
    },
    /// The file is longer than its header says.
    #[error("{}", self.message_with(&mut default_advice))]
    TooLong {
        /// The file.
        path: String,
        /// Expected length in bytes.
        expected: u64,
        /// Actual length in bytes.
        found: u64,
    },
    /// A checksum or a header field is wrong.
    #[error("{}", self.message_with(&mut default_advice))]
    Corrupt {
        /// The file.
        path: String,
        /// What is wrong.
        what: String,
    },
    /// Several layer files of one set are bad: each one's error, in layer order (opening a set
    /// names them all, not the first one met).
    #[error("{}", bad_layers(.errors, &mut default_advice))]
    BadLayers {
        /// The layers (seeds) and their errors, one per bad file (none of them `BadLayers`),
        /// in layer order.
        errors: Vec<(u32, EgdbError)>,
    },
    /// What is in a layer's place, met opening a set, is not a regular file (a directory, a
    /// FIFO, a device, a symbolic link to nothing): a build leaves it alone.
    #[error("{path}: {what}; {advice}", advice = DELETE_FIRST_ADVICE)]
    NotAFile {
        /// The layer file's path.
        path: String,
        /// What is there instead (`not a regular file (a directory, a FIFO or a device)`).
        what: String,
    },
    /// A layer file, or a directory on the way to it (the set's, the root, one above), this
    /// user may not read or search: no build mends it (a build does not replace it); its
    /// permissions do. `path` is the first directory on the way that this user may not search
    /// if there is one ([`unsearchable_dir`]), else the file or directory itself.
    #[error(
        "{path}: {source}; this user may not read it: let this user read it (its owner or root \
         can: `chmod a+r` on a file, `chmod a+x` on a directory; a build does not replace it), \
         then run the command again"
    )]
    Unreadable {
        /// The file.
        path: String,
        /// The error (permission denied).
        source: std::io::Error,
    },
    /// What is in the place of a layer a build would write cannot be read or is no regular
    /// file (a directory, a device, a broken link): a build does not replace it, and stops
    /// before it builds anything.
    #[error(
        "{path}: {what}; a build does not replace it: move it away or delete it, then run the \
         same command again; nothing was built"
    )]
    InTheWay {
        /// The layer file's path.
        path: String,
        /// What is wrong with it (the error met opening it).
        what: String,
    },
    /// Another build (another process) is writing the same set of layers.
    #[error("{path}: another `kalah egdb build` is writing this set; wait for it to finish")]
    Busy {
        /// The set's directory.
        path: String,
    },
    /// The header describes another board, rule set or layer than the file name says.
    #[error("{}", self.message_with(&mut default_advice))]
    Mismatch {
        /// The file.
        path: String,
        /// What the header says.
        found: String,
        /// What was expected.
        expected: String,
    },
    /// The rules make the outcome depend on the stores (the majority end).
    #[error("the majority end makes the outcome depend on the stores, not only on the houses: such rules have no endgame databases (search them instead)")]
    StoreDependentRules,
    /// The layers cannot be indexed or are too big.
    #[error("no databases for {houses} houses a side up to {seeds} seeds: at most 12 houses and {max} seeds, no layer may hold 2^63 arrangements or more (a layer of k seeds holds binomial(k + 2m - 1, 2m - 1)), and all layers together less than 2^64 bytes", max = MAX_LAYER_SEEDS)]
    TooLarge {
        /// Houses a side.
        houses: usize,
        /// Seeds in the houses.
        seeds: u32,
    },
    /// The worker thread pool could not be started.
    #[error("cannot start worker threads: {0}")]
    Threads(String),
    /// A layer handed to [`file::write_layer`] that its header does not describe (a board of
    /// no or more than 12 houses, a layer past [`MAX_LAYER_SEEDS`], another value encoding, or
    /// a payload whose length is not the header's count): nothing was written.
    #[error("{path}: not written: {what}")]
    BadLayer {
        /// The file that was to be written.
        path: String,
        /// What does not fit.
        what: String,
    },
    /// A build or verify was stopped before its end.
    #[error(
        "interrupted before the end (a build keeps its finished layers and resumes after them)"
    )]
    Interrupted,
}

impl EgdbError {
    /// What is wrong with a bad layer file, without its path or advice, and how it is mended:
    /// `truncated (5000 bytes, expected 11516)` and [`Repair::Rebuild`] for a damaged file
    /// ([`EgdbError::Truncated`], [`EgdbError::TooLong`], [`EgdbError::Corrupt`]; reached
    /// through a symbolic link, `..., through a symbolic link` and [`Repair::DeleteFirst`],
    /// since a build does not replace a link); `not a
    /// regular file (...)` and [`Repair::DeleteFirst`] for [`EgdbError::NotAFile`]. `None` for
    /// every other error.
    pub fn damage(&self) -> Option<(String, Repair)> {
        // A damaged file reached through a symbolic link: a build does not replace the link
        // (tester 86: the advice was the build, which then refused).
        let damaged = |path: &str, what: String| {
            if is_symlink(Path::new(path)) {
                (
                    format!("{what}, through a symbolic link"),
                    Repair::DeleteFirst,
                )
            } else {
                (what, Repair::Rebuild)
            }
        };
        match self {
            EgdbError::Truncated {
                path,
                expected,
                found,
            } => Some(damaged(path, truncated(found, expected))),
            EgdbError::TooLong {
                path,
                expected,
                found,
            } => Some(damaged(path, too_long(found, expected))),
            EgdbError::Corrupt { path, what } => Some(damaged(path, corrupt(what))),
            EgdbError::NotAFile { what, .. } => Some((what.clone(), Repair::DeleteFirst)),
            _ => None,
        }
    }

    /// What is wrong with a whole layer file that a build leaves alone because it is no file
    /// of this set, without its path or advice: another board, rule set or layer
    /// ([`EgdbError::Mismatch`]), no database file at all ([`EgdbError::NotADatabase`]), or
    /// another format version ([`EgdbError::Version`]). `None` for every other error.
    pub fn whole_file_what(&self) -> Option<String> {
        match self {
            EgdbError::Mismatch {
                found, expected, ..
            } => Some(mismatch_what(found, expected)),
            EgdbError::NotADatabase { .. } => {
                Some("not a kalah endgame database file (bad magic)".to_string())
            }
            EgdbError::Version {
                found, expected, ..
            } => Some(format!(
                "database format version {found}, this program reads versions 1 to \
                 {expected} (a file of a newer kalah, whose program reads it)"
            )),
            _ => None,
        }
    }

    /// The error's message (its `Display`) with the advice after each bad layer file it names
    /// ([`REBUILD_ADVICE`], [`DELETE_FIRST_ADVICE`]) replaced by `advice(i, repair)`, `i`
    /// counting those files from 0 in the order the message names them (one for a bad file;
    /// each shown file of [`EgdbError::BadLayers`]) and `repair` saying how that file is
    /// mended; `None` leaves the advice out (`PATH: truncated (5000 bytes, expected 11516)`). A
    /// front end that knows the whole build command (board, rules, directory) puts it there.
    /// `to_string()` is this with those two constants as the advice.
    pub fn message_with(&self, advice: &mut dyn FnMut(usize, Repair) -> Option<String>) -> String {
        let mut n = 0;
        self.message_counting(advice, &mut n)
    }

    /// The error's message without the advice on how to mend the files it names
    /// ([`EgdbError::message_with`], `None` for each file; for [`EgdbError::Mismatch`]: `PATH:
    /// holds ..., but its name and place say ... (a file copied or moved by hand?)`), for a
    /// front end that gives the advice itself, once, after several files.
    pub fn message_without_advice(&self) -> String {
        self.message_with(&mut |_, _| None)
    }

    fn message_counting(
        &self,
        advice: &mut dyn FnMut(usize, Repair) -> Option<String>,
        n: &mut usize,
    ) -> String {
        match (self, self.damage()) {
            (
                EgdbError::Truncated { path, .. }
                | EgdbError::TooLong { path, .. }
                | EgdbError::Corrupt { path, .. }
                | EgdbError::NotAFile { path, .. },
                Some((damage, repair)),
            ) => {
                let text = match advice(*n, repair) {
                    Some(a) => format!("{path}: {damage}; {a}"),
                    None => format!("{path}: {damage}"),
                };
                *n += 1;
                text
            }
            // A whole file of another board, rule set, layer, format or version: a build leaves
            // it alone (tester 101: `solve` and `build` said "rebuild" without the command
            // `verify` names).
            (
                EgdbError::Mismatch { path, .. }
                | EgdbError::NotADatabase { path }
                | EgdbError::Version { path, .. },
                _,
            ) => {
                let text = format!("{path}: {}", self.whole_file_what().unwrap_or_default());
                let text = match advice(*n, Repair::DeleteFirst) {
                    Some(a) => format!("{text}; {a}"),
                    None => text,
                };
                *n += 1;
                text
            }
            (EgdbError::BadLayers { errors }, _) => bad_layers_counting(errors, advice, n),
            _ => self.to_string(),
        }
    }
}

fn truncated(found: &u64, expected: &u64) -> String {
    format!("truncated ({found} bytes, expected {expected})")
}

fn too_long(found: &u64, expected: &u64) -> String {
    format!("too long ({found} bytes, expected {expected})")
}

fn corrupt(what: &str) -> String {
    format!("corrupt ({what})")
}

/// Refuses rule sets whose outcome depends on the stores.
pub(crate) fn check_rules(rules: &Rules) -> Result<(), EgdbError> {
    if rules.outcome_depends_on_stores() {
        return Err(EgdbError::StoreDependentRules);
    }
    Ok(())
}

/// The `kalah egdb build` command that builds layers 0..=`max_seeds` of the set of `houses`
/// under `rules` (only its capture, end and leftover rules, each flag only when not standard),
/// with `--egdb-dir DIR` when `egdb_dir` is given (written as the shell should read it), for
/// messages that say how to build or mend a set.
pub fn build_command(
    houses: usize,
    rules: &Rules,
    max_seeds: impl std::fmt::Display,
    egdb_dir: Option<&str>,
) -> String {
    let standard = Rules::STANDARD;
    let mut cmd = format!("kalah egdb build --houses {houses} --max-seeds {max_seeds}");
    if rules.capture != standard.capture {
        cmd += &format!(" --capture {}", rules.capture);
    }
    if rules.end != standard.end {
        cmd += &format!(" --end {}", rules.end);
    }
    if rules.leftovers != standard.leftovers {
        cmd += &format!(" --leftovers {}", rules.leftovers);
    }
    if let Some(dir) = egdb_dir {
        cmd += &format!(" --egdb-dir {dir}");
    }
    cmd
}

/// The default database root: `egdb` under the per-user data directory (e.g.
/// `~/.local/share/kalah/egdb` on Linux). `None` if the platform has no home directory.
pub fn default_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "kalah").map(|d| d.data_dir().join("egdb"))
}

/// A set of opened database layers for one board size and rule set, layers 0..=max_seeds.
#[derive(Debug)]
pub struct Egdb {
    houses: usize,
    rules: Rules,
    max_seeds: u32,
    ix: Indexer,
    layers: Vec<Mmap>,
    dir: PathBuf,
    /// Per layer: its payload failed the checksum checked when the set was opened (layers of
    /// at most [`CHECKED_ON_OPEN`] bytes), or a block of it failed its block checksum when a
    /// probe first read it (larger layers of format 2), or the whole of it failed when a probe
    /// first read it (larger layers of format 1); such a layer answers no probe.
    failed_checksum: Vec<AtomicBool>,
    /// Per layer of format 2 larger than [`CHECKED_ON_OPEN`]: one bit a block of
    /// [`file::BLOCK_BYTES`] values, set once the block has matched its checksum. `None` for
    /// the layers checked whole on opening, and for format 1 layers, which have no block
    /// checksums.
    checked_blocks: Vec<Option<Box<[AtomicU64]>>>,
    /// Per layer of format 1 larger than [`CHECKED_ON_OPEN`] (no block checksums): whether
    /// its payload matched its checksum, found out by the first probe that reads the layer
    /// (tester 52: such a layer's damaged values were used). `None` for the other layers.
    checked_whole: Vec<Option<OnceLock<bool>>>,
    /// One more than the first layer a probe found damaged (an impossible value, or a layer
    /// that failed its checksum), 0 if none.
    damaged: AtomicU32,
}

/// Layers whose values take at most this many bytes (4 MiB) have their payload checksum
/// checked whenever a set is opened: a few milliseconds in all (the layers of Kalah(3,·) up to
/// 52 seeds in the houses, Kalah(4,·) up to 25, Kalah(6,·) up to 13), so a damaged small layer
/// is never used. Larger layers are checked block by block as probes first read them (format 2
/// files), and whole by [`Egdb::open_checked`] and [`Egdb::verify`].
pub const CHECKED_ON_OPEN: u64 = 4 << 20;

/// The result of [`Egdb::verify`].
#[derive(Clone, Debug, Default)]
pub struct VerifyReport {
    /// Entries re-derived.
    pub positions: u64,
    /// Entries whose stored value differs from the one derived from their children.
    pub mismatches: u64,
    /// The first mismatch found: (seeds, rank, stored value, derived value), in the lowest
    /// layer that has any (layers are checked in increasing order).
    pub first: Option<(u32, u64, i32, i32)>,
    /// The layers (seeds) with mismatches, in increasing order. A layer whose values are wrong
    /// also makes the layers above it differ where their entries read it, so the lowest is the
    /// one to build again first.
    pub bad_layers: Vec<u32>,
}

impl Egdb {
    /// Opens the layers present under the database root `dir` (the layers live in its
    /// subdirectory [`file::set_dir_name`]) for `houses` houses a side under `rules`: layers
    /// 0, 1, 2, … as long as they are present. `Ok(None)` if there is no layer 0 there (`dir`
    /// missing or not a directory, no set for this board and these rules, a set whose layer 0
    /// is missing, or a board of no or more than 12 houses, which no set can hold), or if the
    /// rules cannot be databased (the majority end). A front end that was given `dir` should
    /// tell these cases apart for its user (`kalah` checks that `dir` is a directory and names
    /// a set without layer 0).
    ///
    /// Opening is cheap: every file's header (magic, version, header checksum, board, rules,
    /// seeds, count) and length are checked, and the payload's CRC-32 of the layers of at most
    /// [`CHECKED_ON_OPEN`] bytes; a small layer that fails it is not used (its probes give
    /// `None`), and [`Egdb::damaged_layer`] names the lowest such layer at once. The larger
    /// layers' payloads are not read here: in files of format 2 each block of
    /// [`file::BLOCK_BYTES`] values is checked against its own checksum the first time a probe
    /// reads it, and a block that fails makes its layer answer no more probes, as a small layer
    /// that fails; a large layer of format 1 (no block checksums; `kalah egdb build` rewrites
    /// it) is checked whole by the first probe that reads it (see [`Egdb::probe`]), and by
    /// [`Egdb::check_checksums`], [`Egdb::open_checked`] and [`Egdb::verify`] (`kalah egdb
    /// verify`). A truncated, foreign or newer-versioned file, or anything but a regular file in
    /// a layer's place, is refused here.
    ///
    /// # Errors
    /// [`EgdbError`] if a file is present but unreadable, truncated, has a corrupt header or is
    /// of another version ([`EgdbError::BadLayers`] naming each one if several are);
    /// [`EgdbError::Io`] if the set's directory (in a `dir` that is a directory) is there but
    /// is not a directory, or cannot be read.
    pub fn open(dir: &Path, houses: usize, rules: &Rules) -> Result<Option<Egdb>, EgdbError> {
        Self::open_inner(dir, houses, rules, false, CHECKED_ON_OPEN)
    }

    /// [`Egdb::open`] with another bound than [`CHECKED_ON_OPEN`] on the layers whose payload
    /// checksum is checked whole when the set is opened: layers of at most `limit` values are;
    /// the larger layers of format 2 are checked block by block ([`file::BLOCK_BYTES`] values)
    /// the first time a probe reads each block. `limit` 0 checks nothing on opening.
    ///
    /// # Errors
    /// As [`Egdb::open`].
    pub fn open_with_check_limit(
        dir: &Path,
        houses: usize,
        rules: &Rules,
        limit: u64,
    ) -> Result<Option<Egdb>, EgdbError> {
        Self::open_inner(dir, houses, rules, false, limit)
    }

    /// [`Egdb::open`], then [`Egdb::check_checksums`]: also checks every layer's payload
    /// checksum, which reads every file once (about 9 s for the 5.3 GB of Kalah(6,·) layers
    /// 0..=28 on the reference machine).
    ///
    /// # Errors
    /// As [`Egdb::open`], and [`EgdbError::Corrupt`] for a payload checksum mismatch.
    pub fn open_checked(
        dir: &Path,
        houses: usize,
        rules: &Rules,
    ) -> Result<Option<Egdb>, EgdbError> {
        Self::open_inner(dir, houses, rules, true, CHECKED_ON_OPEN)
    }

    /// Checks the CRC-32 of every opened layer's payload against its header (reads every file;
    /// layers are checked in parallel on the current rayon pool).
    ///
    /// # Errors
    /// [`EgdbError::Corrupt`] naming the first bad file (in layer order).
    pub fn check_checksums(&self) -> Result<(), EgdbError> {
        let results: Vec<Result<(), EgdbError>> = (0..=self.max_seeds)
            .into_par_iter()
            .map(|k| {
                let path = file::layer_path(
                    self.dir.parent().unwrap_or(&self.dir),
                    self.houses,
                    &self.rules,
                    k,
                );
                file::check_payload(&path, &self.layers[k as usize])
            })
            .collect();
        results.into_iter().collect()
    }

    fn open_inner(
        dir: &Path,
        houses: usize,
        rules: &Rules,
        check_payload: bool,
        limit: u64,
    ) -> Result<Option<Egdb>, EgdbError> {
        if check_rules(rules).is_err() || !(1..=kalah_core::MAX_HOUSES).contains(&houses) {
            return Ok(None);
        }
        // Layers present on disk, contiguous from 0. Anything in a layer's place counts, a
        // broken symbolic link too (tester 42: it ended the set there, silently), so that
        // `open_layer` refuses it.
        let mut present = 0u32;
        while present <= MAX_LAYER_SEEDS
            && file::layer_path(dir, houses, rules, present)
                .symlink_metadata()
                .is_ok()
        {
            present += 1;
        }
        if present == 0 {
            // A set's directory that is there but is no directory, or cannot be read, is not
            // the same as no set (tester 52: a set made unreadable was silently not used).
            // A root on a way this user may not search is not the same as no root (tester 88:
            // a default root under a 700 directory read as no databases).
            if let Err(e) = std::fs::metadata(dir) {
                if e.kind() == std::io::ErrorKind::PermissionDenied {
                    return Err(unreadable(dir, e));
                }
            }
            if dir.is_dir() {
                let set = dir.join(file::set_dir_name(houses, rules));
                let io = |path: &Path, source| EgdbError::Io {
                    path: path.display().to_string(),
                    source,
                };
                if std::fs::metadata(&set).is_ok_and(|m| !m.is_dir()) {
                    return Err(io(&set, std::io::Error::other(NOT_A_SET_DIRECTORY)));
                }
                // A link to nothing in the set's place is refused as a file there is (tester
                // 86: it read as no set).
                if set.symlink_metadata().is_ok() {
                    match set.metadata() {
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                            return Err(io(&set, std::io::Error::other(LINK_TO_NOTHING)));
                        }
                        // A loop (a link, not the user's permissions).
                        Err(e)
                            if is_symlink(&set)
                                && e.kind() != std::io::ErrorKind::PermissionDenied =>
                        {
                            return Err(io(&set, std::io::Error::other(link_loops(&e))));
                        }
                        _ => {}
                    }
                }
                let zero = file::layer_path(dir, houses, rules, 0);
                match zero.symlink_metadata() {
                    // The set's directory, or the root, which this user may not search
                    // (tester 67: the message named layer 0's file and gave no advice; tester
                    // 86: it named the set's directory when the root was at fault).
                    Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                        return Err(unreadable(&zero, e));
                    }
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(io(&zero, e));
                    }
                    _ => {}
                }
            }
            return Ok(None);
        }
        let max_seeds = present - 1;
        let ix = Indexer::new(houses, max_seeds)?;
        // Every layer opened, so that the error names every bad file, in layer order.
        let opened: Vec<Result<(Mmap, bool), (u32, EgdbError)>> = (0..present)
            .into_par_iter()
            .map(|k| {
                let path = file::layer_path(dir, houses, rules, k);
                let want = LayerHeader::expected(houses, rules, k, ix.layer_size(k));
                let map = file::open_layer(&path, &want, check_payload)
                    .map_err(|e| (k, e))?
                    .ok_or_else(|| {
                        let source = std::io::Error::from(std::io::ErrorKind::NotFound);
                        let path = path.display().to_string();
                        (k, EgdbError::Io { path, source })
                    })?;
                let small = ix.layer_size(k) <= limit;
                let failed = !check_payload && small && file::check_payload(&path, &map).is_err();
                Ok((map, failed))
            })
            .collect();
        let (opened, errors): (Vec<_>, Vec<_>) = opened.into_iter().partition(Result::is_ok);
        let mut errors: Vec<(u32, EgdbError)> =
            errors.into_iter().filter_map(Result::err).collect();
        if errors.len() == 1 {
            return Err(errors.remove(0).1);
        }
        if !errors.is_empty() {
            return Err(EgdbError::BadLayers { errors });
        }
        let opened: Vec<(Mmap, bool)> = opened.into_iter().flatten().collect();
        let checked_blocks = opened
            .iter()
            .enumerate()
            .map(|(k, (map, _))| {
                let size = ix.layer_size(k as u32);
                (!check_payload && size > limit && file::version_of(map) >= 2).then(|| {
                    let blocks = size.div_ceil(file::BLOCK_BYTES as u64);
                    (0..blocks.div_ceil(64))
                        .map(|_| AtomicU64::new(0))
                        .collect()
                })
            })
            .collect();
        let checked_whole = opened
            .iter()
            .enumerate()
            .map(|(k, (map, _))| {
                let size = ix.layer_size(k as u32);
                (!check_payload && size > limit && file::version_of(map) < 2).then(OnceLock::new)
            })
            .collect();
        let (layers, failed): (Vec<Mmap>, Vec<bool>) = opened.into_iter().unzip();
        // A small layer that failed its checksum is named at once, not only once a probe asks
        // for it (tester 106: a solve that never reached it said nothing).
        let first_failed = failed.iter().position(|&f| f).map_or(0, |k| k as u32 + 1);
        let failed_checksum = failed.into_iter().map(AtomicBool::new).collect();
        Ok(Some(Egdb {
            houses,
            rules: *rules,
            max_seeds,
            ix,
            layers,
            dir: dir.join(file::set_dir_name(houses, rules)),
            failed_checksum,
            checked_blocks,
            checked_whole,
            damaged: AtomicU32::new(first_failed),
        }))
    }

    /// Houses a side.
    pub fn houses(&self) -> usize {
        self.houses
    }

    /// The rule set the layers were opened for (only its capture, end and leftover rules matter).
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The largest number of seeds in the houses that the opened layers cover.
    pub fn max_seeds(&self) -> u32 {
        self.max_seeds
    }

    /// The directory holding the layer files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The largest layer file `kNNN.egdb` in [`Egdb::dir`] above `max_seeds + 1`, if any: layers
    /// past a missing one, which are not used (layers are opened from 0 up to the first gap).
    /// Reads the directory's file names only (see [`layer_files`]).
    pub fn layers_past_gap(&self) -> Option<u32> {
        layer_files(&self.dir)
            .ok()?
            .into_iter()
            .map(|(_, k)| k)
            .filter(|&k| k > self.max_seeds + 1)
            .max()
    }

    /// Arrangements in layer `seeds` (binomial(seeds+2m−1, 2m−1)).
    ///
    /// # Panics
    /// If `seeds` > [`Egdb::max_seeds`].
    pub fn layer_size(&self, seeds: u32) -> u64 {
        self.ix.layer_size(seeds)
    }

    /// The stored values of layer `seeds` in rank order (signed bytes: future gain of the mover).
    ///
    /// # Panics
    /// If `seeds` > [`Egdb::max_seeds`].
    pub fn layer_values(&self, seeds: u32) -> &[u8] {
        assert!(
            seeds <= self.max_seeds,
            "layer {seeds} is past the databases' largest layer, {}",
            self.max_seeds
        );
        file::values_of(&self.layers[seeds as usize])
    }

    /// Whether positions under `rules` can be answered by these layers: same capture, end and
    /// leftover rules, no majority end.
    pub fn serves(&self, rules: &Rules) -> bool {
        !rules.outcome_depends_on_stores()
            && rules.capture == self.rules.capture
            && rules.end == self.rules.end
            && rules.leftovers == self.rules.leftovers
    }

    /// The future store gain of `pos` for the side to move under perfect play: its value (final
    /// store difference, side to move minus opponent) minus the current store difference
    /// `pos.store_diff(side to move)`. `None` if the databases do not cover the position (other
    /// board size or rules, more seeds in the houses than [`Egdb::max_seeds`], a game already
    /// over, or an opening phase).
    ///
    /// A layer that failed its checksum when the set was opened (see [`Egdb::open`]) answers
    /// `None`. The first probe into a block of a larger layer (format 2) checks that block's
    /// checksum; a block that fails makes the probe, and every later probe of that layer,
    /// answer `None`, so a search finds those values itself, and [`Egdb::damaged_layer`] names
    /// the layer from then on. A stored value that cannot be right, a future gain larger than
    /// the seeds in the houses (or, when every seed ends in a store, of the wrong parity: gain
    /// ≡ seeds mod 2), is refused the same way. A large layer of format 1 (no block checksums)
    /// is checked whole by the first probe that reads it, which takes as long as reading the
    /// file; one that fails answers `None` as above.
    ///
    /// The example of docs/EGDB.md, with the databases of `kalah egdb build --houses 6
    /// --max-seeds 18` (or more) in the default directory:
    ///
    /// ```no_run
    /// use kalah_core::{Position, Rules};
    /// use kalah_egdb::Egdb;
    ///
    /// fn main() -> Result<(), Box<dyn std::error::Error>> {
    ///     let rules = Rules::default();
    ///     let dir = kalah_egdb::default_dir().ok_or("no home directory")?;
    ///     // None: no layers of Kalah(6,·) under these rules were built there.
    ///     if let Some(db) = Egdb::open(&dir, 6, &rules)? {
    ///         // 18 seeds in the houses: answered by layers built to 18 seeds or more.
    ///         let pos: Position = "0,2,3,1,0,4,9,5,0,0,2,1,0,12 S".parse()?;
    ///         // The future gain of the side to move (South): -4, so the value is 9 - 12 - 4 = -7.
    ///         assert_eq!(db.probe(&pos, &rules), Some(-4));
    ///     }
    ///     Ok(())
    /// }
    /// ```
    pub fn probe(&self, pos: &Position, rules: &Rules) -> Option<i32> {
        let (k, r) = self.locate(pos, rules)?;
        let layer = &self.layers[k as usize];
        let v = layer[HEADER_LEN + r as usize] as i8 as i32;
        let parity = self.rules.leftovers != LeftoverRule::Nobody;
        let failed = &self.failed_checksum[k as usize];
        if let Some(seen) = self.checked_blocks[k as usize]
            .as_ref()
            .filter(|_| !failed.load(Ordering::Relaxed))
        {
            // The first read of a block checks it against its checksum (one page of values:
            // a fraction of a microsecond); a block that fails makes the layer answer nothing.
            let block = r as usize / file::BLOCK_BYTES;
            let (word, bit) = (&seen[block / 64], 1u64 << (block % 64));
            if word.load(Ordering::Relaxed) & bit == 0 {
                if file::block_ok(layer, block) {
                    word.fetch_or(bit, Ordering::Relaxed);
                } else {
                    failed.store(true, Ordering::Relaxed);
                }
            }
        }
        if let Some(whole) = &self.checked_whole[k as usize] {
            // A format 1 file: the whole layer is checked by its first probe (as long as reading
            // the file takes; `kalah egdb build` rewrites it in format 2).
            if !*whole.get_or_init(|| file::check_payload(&self.layer_path(k), layer).is_ok()) {
                failed.store(true, Ordering::Relaxed);
            }
        }
        if failed.load(Ordering::Relaxed)
            || v.unsigned_abs() > k
            || (parity && (v - k as i32) % 2 != 0)
        {
            let _ = self
                .damaged
                .compare_exchange(0, k + 1, Ordering::Relaxed, Ordering::Relaxed);
            return None;
        }
        Some(v)
    }

    /// The lowest small layer (seeds in the houses) that failed its checksum when the set was
    /// opened (see [`Egdb::open`]), else the first in which [`Egdb::probe`] found an impossible
    /// value or a block failing its checksum, if any: its file is damaged (`kalah egdb verify`
    /// confirms it; see [`Egdb::damage_warning`] for the repair). A large layer's damage is
    /// named only once a probe meets it; [`Egdb::verify`] checks every layer at once.
    pub fn damaged_layer(&self) -> Option<u32> {
        self.damaged.load(Ordering::Relaxed).checked_sub(1)
    }

    /// What is wrong with the damaged layer ([`Egdb::damaged_layer`]), if any:
    /// `DIR/kNNN.egdb holds impossible values: the file is damaged` (`fails its checksum` for a
    /// layer that failed it when the set was opened).
    pub fn damage(&self) -> Option<String> {
        let k = self.damaged_layer()?;
        let what = if self.failed_checksum[k as usize].load(Ordering::Relaxed) {
            "fails its checksum"
        } else {
            "holds impossible values"
        };
        Some(format!(
            "{} {what}: the file is damaged",
            self.layer_path(k).display()
        ))
    }

    /// The warning for a damaged layer ([`Egdb::damage`]), if any, for front ends to print
    /// after their own prefix once a search is done: `DIR/kNNN.egdb holds impossible values: the
    /// file is damaged (those positions were searched instead); check it with 'kalah egdb
    /// verify' and build it again ('kalah egdb build' replaces it)`.
    ///
    /// A layer whose checksum fails is replaced by the build; one whose checksums hold but whose
    /// values are impossible is kept by the build (it checks the checksums), so that file must
    /// be deleted first.
    pub fn damage_warning(&self) -> Option<String> {
        self.damage_warning_with(self.repair_advice()?)
    }

    /// [`Egdb::damage_warning`] with the repair given (a front end's, naming the whole build
    /// command), if a layer is damaged.
    pub fn damage_warning_with(&self, repair: &str) -> Option<String> {
        Some(format!(
            "{} (those positions were searched instead); check it with 'kalah egdb verify' and \
             {repair}",
            self.damage()?
        ))
    }

    /// How to repair the damaged layer ([`Egdb::damaged_layer`]), if any: a file that failed
    /// its checksum is replaced by `kalah egdb build`; one whose checksums hold but whose values
    /// are impossible is kept by the build (it checks the checksums), so it must be deleted first.
    /// A front end that knows the whole build command gives it instead, after
    /// [`Egdb::repair`].
    pub fn repair_advice(&self) -> Option<&'static str> {
        Some(match self.repair()? {
            Repair::Rebuild => "build it again ('kalah egdb build' replaces it)",
            Repair::DeleteFirst if self.damaged_is_link() => {
                "delete it and build it again ('kalah egdb build' does not replace a symbolic link)"
            }
            Repair::DeleteFirst => {
                "delete it and build it again ('kalah egdb build' keeps a file whose checksums hold)"
            }
        })
    }

    /// How the damaged layer ([`Egdb::damaged_layer`]) is mended, if any: [`Repair::Rebuild`]
    /// for a file that failed its checksum (a build replaces it), [`Repair::DeleteFirst`] for
    /// one whose checksums hold but whose values are impossible (a build keeps it) or that is
    /// a symbolic link (a build does not replace it: [`Egdb::damaged_is_link`]).
    pub fn repair(&self) -> Option<Repair> {
        let k = self.damaged_layer()? as usize;
        Some(
            if self.failed_checksum[k].load(Ordering::Relaxed) && !self.damaged_is_link() {
                Repair::Rebuild
            } else {
                Repair::DeleteFirst
            },
        )
    }

    /// Whether the damaged layer's file ([`Egdb::damaged_layer`]) is a symbolic link, which a
    /// build does not replace.
    pub fn damaged_is_link(&self) -> bool {
        self.damaged_layer()
            .is_some_and(|k| is_symlink(&self.layer_path(k)))
    }

    /// The path of the file of layer `seeds`.
    pub fn layer_path(&self, seeds: u32) -> PathBuf {
        self.dir.join(file::layer_file_name(seeds))
    }

    /// Asks the CPU to start loading the entry [`Egdb::probe`] would read for `pos`, so that a
    /// search can prefetch the entries of a node's children (as it does for its transposition
    /// table) and probe them a little later without waiting on memory. Does nothing for a
    /// position the databases do not cover (see [`Egdb::probe`]); never faults.
    pub fn prefetch(&self, pos: &Position, rules: &Rules) {
        if let Some((k, r)) = self.locate(pos, rules) {
            let layer = &self.layers[k as usize];
            let p = layer.as_ptr().wrapping_add(HEADER_LEN + r as usize);
            #[cfg(target_arch = "x86_64")]
            // SAFETY: prefetching never faults, whatever the address; SSE is baseline on x86_64.
            unsafe {
                std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0);
            }
            #[cfg(not(target_arch = "x86_64"))]
            let _ = p;
        }
    }

    /// The layer and rank of `pos` if the databases cover it.
    #[inline]
    fn locate(&self, pos: &Position, rules: &Rules) -> Option<(u32, u64)> {
        if !self.serves(rules)
            || pos.houses() != self.houses
            || pos.is_over()
            || pos.phase() != Phase::Normal
        {
            return None;
        }
        let k = pos.seeds_in_houses();
        if k > self.max_seeds || pos.end_reason(rules).is_some() {
            return None;
        }
        let m = self.houses;
        let side = pos.side();
        let mut x: Arr = [0; MAX_SLOTS];
        x[..m].copy_from_slice(pos.row(side));
        x[m..2 * m].copy_from_slice(pos.row(side.opposite()));
        Some((k, self.ix.rank(&x[..2 * m], k)))
    }

    /// Checks every layer's payload checksum ([`Egdb::check_checksums`]), then re-derives every
    /// entry of every layer from its children (read from the stored layers) and counts the
    /// entries that differ. Runs on `threads` threads (`None`: every core); `stop` is polled
    /// between chunks; `on_progress(done, total)` is called about every 65 536 entries.
    ///
    /// # Errors
    /// [`EgdbError::Corrupt`] for a payload checksum mismatch; [`EgdbError::Interrupted`] if
    /// `stop` was set; [`EgdbError::Threads`] for more than [`MAX_THREADS`] threads, or if they
    /// cannot be started.
    pub fn verify(
        &self,
        threads: Option<usize>,
        stop: &AtomicBool,
        on_progress: &(dyn Fn(u64, u64) + Sync),
    ) -> Result<VerifyReport, EgdbError> {
        let pool = worker_pool(threads)?;
        pool.install(|| {
            self.check_checksums()?;
            self.verify_in_pool(stop, on_progress)
        })
    }

    fn verify_in_pool(
        &self,
        stop: &AtomicBool,
        on_progress: &(dyn Fn(u64, u64) + Sync),
    ) -> Result<VerifyReport, EgdbError> {
        let total: u64 = (0..=self.max_seeds).map(|k| self.ix.layer_size(k)).sum();
        let done = AtomicU64::new(0);
        let mut report = VerifyReport::default();
        for k in 0..=self.max_seeds {
            let (bad, first) = dispatch_m!(
                self.houses,
                verify_layer(self, k, stop, &done, total, on_progress)
            )
            .map_err(|_| EgdbError::Interrupted)?;
            report.mismatches += bad;
            if bad > 0 {
                report.bad_layers.push(k);
            }
            if report.first.is_none() {
                report.first = first.map(|(r, s, d)| (k, r, s, d));
            }
            report.positions += self.ix.layer_size(k);
        }
        Ok(report)
    }
}

/// Mismatches of a layer or chunk, and the first as (rank, stored, derived).
type LayerCheck = (u64, Option<(u64, i32, i32)>);

/// Re-derives layer `k` of `db`: (mismatches, first mismatch as (rank, stored, derived)).
fn verify_layer<const M: usize>(
    db: &Egdb,
    k: u32,
    stop: &AtomicBool,
    done: &AtomicU64,
    total: u64,
    on_progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<LayerCheck, ()> {
    const CHUNK: u64 = 1 << 16;
    let lower: Vec<&[u8]> = (0..k).map(|j| db.layer_values(j)).collect();
    let size = db.ix.layer_size(k);
    let values = db.layer_values(k);
    let solver: Solver<'_, _, M> = Solver {
        game: Game::<M>::new(&db.rules, k),
        ix: &db.ix,
        k,
        lower: &lower,
        cur: Finished(values),
    };
    let chunks = size.div_ceil(CHUNK);
    let results: Vec<LayerCheck> = (0..chunks)
        .into_par_iter()
        .map(|c| {
            if stop.load(Ordering::Relaxed) {
                return Err(());
            }
            let start = c * CHUNK;
            let end = size.min(start + CHUNK);
            let mut x: Arr = [0; MAX_SLOTS];
            db.ix.unrank(k, start, &mut x[..2 * M]);
            let mut bad = 0u64;
            let mut first = None;
            // Batches: expand (prefetch the children of) BATCH entries, then finish them.
            const BATCH: usize = 16;
            let mut batch = [Expanded::<M>::default(); BATCH];
            let mut r = start;
            while r < end {
                let r0 = r;
                let mut nb = 0;
                while nb < BATCH && r < end {
                    solver.expand(&x, &mut batch[nb]);
                    nb += 1;
                    successor(&mut x[..2 * M]);
                    r += 1;
                }
                for (j, e) in batch[..nb].iter().enumerate() {
                    let rr = r0 + j as u64;
                    let stored = values[rr as usize] as i8 as i32;
                    let derived = solver.finish(e);
                    if stored != derived {
                        bad += 1;
                        first.get_or_insert((rr, stored, derived));
                    }
                }
            }
            let d = done.fetch_add(end - start, Ordering::Relaxed) + (end - start);
            on_progress(d, total);
            Ok((bad, first))
        })
        .collect::<Result<_, ()>>()?;
    let bad = results.iter().map(|r| r.0).sum();
    let first = results.iter().find_map(|r| r.1);
    Ok((bad, first))
}

/// `layer 3`, `layers 0..=4`, `layers 0..=4 and 6..=8`, `layers 0..=2, 4 and 6..=8`: the layers
/// `ks` (in any order; each named once), runs written as ranges: how `kalah` names sets of
/// layers. `no layers` for none.
pub fn layers_text(ks: &[u32]) -> String {
    let mut ks = ks.to_vec();
    ks.sort_unstable();
    ks.dedup();
    if ks.is_empty() {
        return "no layers".to_string();
    }
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &k in &ks {
        match runs.last_mut() {
            Some((_, hi)) if hi.checked_add(1) == Some(k) => *hi = k,
            _ => runs.push((k, k)),
        }
    }
    let parts: Vec<String> = runs
        .iter()
        .map(|&(lo, hi)| {
            if lo == hi {
                lo.to_string()
            } else {
                format!("{lo}..={hi}")
            }
        })
        .collect();
    let list = match parts.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    format!("layer{} {list}", if ks.len() == 1 { "" } else { "s" })
}

/// The errors of [`EgdbError::BadLayers`]: which layers, then the first [`SHOWN_BAD_LAYERS`]
/// errors one after another, and how many more there are.
fn bad_layers(
    errors: &[(u32, EgdbError)],
    advice: &mut dyn FnMut(usize, Repair) -> Option<String>,
) -> String {
    bad_layers_counting(errors, advice, &mut 0)
}

fn bad_layers_counting(
    errors: &[(u32, EgdbError)],
    advice: &mut dyn FnMut(usize, Repair) -> Option<String>,
    n: &mut usize,
) -> String {
    let ks: Vec<u32> = errors.iter().map(|(k, _)| *k).collect();
    let shown: Vec<String> = errors
        .iter()
        .take(SHOWN_BAD_LAYERS)
        .map(|(_, e)| e.message_counting(advice, n))
        .collect();
    let more = match errors.len().saturating_sub(SHOWN_BAD_LAYERS) {
        0 => String::new(),
        n => format!("; and {n} more (`kalah egdb info` lists each)"),
    };
    format!(
        "{} bad layer files ({}): {}{more}",
        errors.len(),
        layers_text(&ks),
        shown.join("; ")
    )
}

/// How many of the bad layer files of [`EgdbError::BadLayers`] its message shows in full.
pub const SHOWN_BAD_LAYERS: usize = 3;

/// One layer file found under a database root (for `kalah egdb info`).
#[derive(Clone, Debug)]
pub struct LayerInfo {
    /// The file.
    pub path: PathBuf,
    /// Its header, or why it could not be read.
    pub header: Result<LayerHeader, String>,
    /// Whether the header could not be read because this user may not read the file (the
    /// remedy is its permissions, not a rebuild).
    pub unreadable: bool,
    /// File length in bytes.
    pub bytes: u64,
}

/// What is wrong with a file (or anything but a directory) under a set directory's name.
const NOT_A_SET_DIRECTORY: &str =
    "not a directory (a set's layers are in one): move it away or delete it";

/// The entries under a database root named as set directories ([`file::set_dir_name`]) that
/// hold no usable set, in name order, each with its problem: not a directory (`not a
/// directory (a set's layers are in one): move it away or delete it`), a symbolic link to
/// nothing, or a directory whose layers this user can neither list nor find by name
/// ([`layer_files`]: one it may search but not list, mode 711, is not bad) or may not read (the
/// message names the directory that this user may not search, [`unsearchable_dir`]: the
/// set's, or the root, or one a link leads through). [`list_layers`] lists no layers of these;
/// opening their sets fails. A root this user may search but not list is searched for each
/// set directory name ([`set_dirs`]).
pub fn list_bad_sets(root: &Path) -> Vec<(PathBuf, String)> {
    let Ok(sets) = set_dirs(root) else {
        return Vec::new();
    };
    sets.into_iter()
        .filter_map(|p| set_files(&p).err().map(|what| (p, what)))
        .collect()
}

/// The layer files of the set directory `set` ([`layer_files`]), or what makes it unusable
/// ([`list_bad_sets`]).
fn set_files(set: &Path) -> Result<Vec<(PathBuf, u32)>, String> {
    // The message without the set's own path, which the listing puts first.
    let denied = |e: std::io::Error, at: &Path| {
        let text = if e.kind() == std::io::ErrorKind::PermissionDenied {
            unreadable(at, e).to_string()
        } else {
            e.to_string()
        };
        let own = format!("{}: ", set.display());
        text.strip_prefix(&own).map_or(text.clone(), str::to_string)
    };
    match std::fs::metadata(set) {
        Ok(m) if !m.is_dir() => return Err(NOT_A_SET_DIRECTORY.to_string()),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(LINK_TO_NOTHING.to_string());
        }
        Err(e) if is_symlink(set) && e.kind() != std::io::ErrorKind::PermissionDenied => {
            return Err(link_loops(&e));
        }
        Err(e) => return Err(denied(e, set)),
    }
    let files = layer_files(set).map_err(|e| denied(e, set))?;
    // A directory this user may list but not search: its files cannot be read.
    if let Some((first, _)) = files.first() {
        if let Err(e) = std::fs::symlink_metadata(first) {
            if e.kind() == std::io::ErrorKind::PermissionDenied {
                return Err(denied(e, first));
            }
        }
    }
    Ok(files)
}

/// What is wrong with a symbolic link to nothing in a set directory's place.
const LINK_TO_NOTHING: &str =
    "a symbolic link to nothing (a set's layers are in a directory): move it away or delete it";

/// What is wrong with a symbolic link in a set directory's place that cannot be followed for
/// another reason than permissions, `e` (a loop: tester 88, the message named layer 0 inside
/// it, with no remedy).
fn link_loops(e: &std::io::Error) -> String {
    format!(
        "a symbolic link that cannot be followed ({e}; a set's layers are in a directory): move \
         it away or delete it"
    )
}

/// The entries of the database root `root` named as set directories ([`file::set_dir_name`]),
/// in name order, whatever they are (directories, files, links). A root this user may search
/// but not list (mode 711) is searched for every set directory name ([`file::set_dir_names`])
/// in turn, as opening a set does.
///
/// # Errors
/// The listing's error, when `root` cannot be listed and no set directory is found in it by
/// name (a missing root: `NotFound`).
pub fn set_dirs(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = match std::fs::read_dir(root) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .and_then(file::parse_set_dir_name)
                    .is_some()
            })
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            let names = file::set_dir_names().map(|(name, _, _)| (root.join(name), ()));
            by_name(names, e)?.into_iter().map(|(p, ())| p).collect()
        }
        Err(e) => return Err(e),
    };
    out.sort();
    Ok(out)
}

/// The entries of `names` (paths in one directory, each with its tag) that are there, for a
/// directory this user may search but not list (`listing`: the error listing it gave). An empty
/// directory it may search has none (tester 88: an empty 711 root was a permission error).
///
/// # Errors
/// `listing`, if the directory cannot be searched either (looking at a name is refused).
fn by_name<T>(
    names: impl Iterator<Item = (PathBuf, T)>,
    listing: std::io::Error,
) -> std::io::Result<Vec<(PathBuf, T)>> {
    let mut found = Vec::new();
    for (p, tag) in names {
        match std::fs::symlink_metadata(&p) {
            Ok(_) => found.push((p, tag)),
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => return Err(listing),
            Err(_) => {}
        }
    }
    Ok(found)
}

/// The first directory on the way to `path` that this user may not search (so that nothing
/// under it can be looked at: `stat` of its entries fails with permission denied), if any:
/// the directory above the first component of `path` that cannot be looked at. `None` when
/// every component up to `path` itself can be (a file this user may not read, or a directory
/// it may not list), or when the first component cannot (the working directory is the one).
/// A symbolic link on the way is named as the directory it leads to is searched through it.
pub fn unsearchable_dir(path: &Path) -> Option<PathBuf> {
    unsearchable_through(path, 0)
}

/// [`unsearchable_dir`], `links` symbolic links deep: a link on the way is followed (to the
/// directory it leads to), up to 40 deep as the system does.
fn unsearchable_through(path: &Path, links: u32) -> Option<PathBuf> {
    let mut prefix = PathBuf::new();
    let mut last_ok: Option<PathBuf> = None;
    // Through a link, the directory at fault is on the link's way (tester 88: the link was
    // named, and its permissions mend nothing).
    let through = |link: PathBuf| {
        let Ok(target) = std::fs::read_link(&link) else {
            return Some(link);
        };
        if links >= 40 {
            return Some(link);
        }
        let target = link.parent().unwrap_or(Path::new("")).join(target);
        let rest = path.strip_prefix(&link).unwrap_or(Path::new(""));
        unsearchable_through(&target.join(rest), links + 1).or(Some(link))
    };
    for c in path.components() {
        prefix.push(c);
        match std::fs::symlink_metadata(&prefix) {
            // A link this user may not follow.
            Ok(m)
                if m.file_type().is_symlink()
                    && std::fs::metadata(&prefix)
                        .is_err_and(|e| e.kind() == std::io::ErrorKind::PermissionDenied) =>
            {
                return through(prefix);
            }
            Ok(_) => last_ok = Some(prefix.clone()),
            // The directory above; a link to it is named by where it leads.
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                return last_ok.map(|d| {
                    if is_symlink(&d) {
                        std::fs::canonicalize(&d).unwrap_or(d)
                    } else {
                        d
                    }
                });
            }
            Err(_) => return None,
        }
    }
    None
}

/// [`EgdbError::Unreadable`] for `path`, which this user may not read (`source`: permission
/// denied): naming the directory on the way that it may not search, if there is one
/// ([`unsearchable_dir`]), else `path`.
pub fn unreadable(path: &Path, source: std::io::Error) -> EgdbError {
    let at = unsearchable_dir(path).unwrap_or_else(|| path.to_path_buf());
    EgdbError::Unreadable {
        path: at.display().to_string(),
        source,
    }
}

/// The layer files (`k000.egdb` to `k120.egdb`, [`file::parse_layer_file_name`]) in the set
/// directory `dir`, with their seeds, in increasing seeds. A directory this user may search but
/// not list (mode 711, as a shared root may be set up) is searched for each name in turn, as
/// opening the set does; only when none is found so is its error kept.
///
/// # Errors
/// The listing's error, when `dir` cannot be listed and no layer file is found in it by name.
pub fn layer_files(dir: &Path) -> std::io::Result<Vec<(PathBuf, u32)>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            let names = (0..=MAX_LAYER_SEEDS).map(|k| (dir.join(file::layer_file_name(k)), k));
            return by_name(names, e);
        }
        Err(e) => return Err(e),
    };
    let mut files: Vec<(PathBuf, u32)> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let k = file::parse_layer_file_name(p.file_name()?.to_str()?)?;
            Some((p, k))
        })
        .collect();
    files.sort();
    Ok(files)
}

/// Lists the layer files under a database root, by set directory then seeds, reading headers
/// only (no payload checksum: use [`Egdb::open_checked`] or `verify` for that). Only names the
/// builds write count: set directories named as [`file::set_dir_name`] writes them
/// (`m6-standard-row-empty-owner`) and in them layer files `k000.egdb` to `k120.egdb`
/// ([`file::parse_layer_file_name`]); other files and directories are not listed, nor are
/// set directories that cannot be listed ([`list_bad_sets`] names those).
///
/// # Errors
/// [`EgdbError::Io`] if the root cannot be listed (a missing root gives an empty list).
pub fn list_layers(root: &Path) -> Result<Vec<LayerInfo>, EgdbError> {
    let io = |p: &Path, e| EgdbError::Io {
        path: p.display().to_string(),
        source: e,
    };
    let mut out = Vec::new();
    let sets = match set_dirs(root) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            return Err(unreadable(root, e))
        }
        Err(e) => return Err(io(root, e)),
    };
    // A root this user may list but not search: one error naming it, not one a set (tester 86:
    // every healthy set was called bad).
    if let Some(first) = sets.first() {
        if let Err(e) = first.symlink_metadata() {
            if e.kind() == std::io::ErrorKind::PermissionDenied {
                return Err(unreadable(first, e));
            }
        }
    }
    // Set directories with their board size, layer files with their seeds, in name order (the
    // names are zero-padded, so layers come in increasing seeds).
    for d in sets {
        let Some((m, _)) = d
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(file::parse_set_dir_name)
        else {
            continue;
        };
        // A set's directory that cannot be listed or read is one of [`list_bad_sets`], not the
        // end of the listing (tester 67: one such directory hid every healthy set).
        let Ok(files) = set_files(&d) else {
            continue;
        };
        for (path, k) in files {
            let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            let header = file::read_header(&path);
            let unreadable = matches!(&header, Err(EgdbError::Unreadable { .. }));
            let header = header.map_err(|e| match e {
                // Too short for a header: the full length of the layer its place names (set
                // directory and `kNNN.egdb`), as opening the set says it.
                EgdbError::Truncated {
                    path: p,
                    expected,
                    found,
                } => {
                    let full = index::Indexer::new(m, k)
                        .map(|ix| file::file_len(file::FORMAT_VERSION, ix.layer_size(k)));
                    EgdbError::Truncated {
                        path: p,
                        expected: full.unwrap_or(expected),
                        found,
                    }
                    .to_string()
                }
                // A file behind a directory this user may not search (a link into it): the
                // file first, then the directory (tester 89: only the directory was named).
                e @ EgdbError::Unreadable { .. }
                    if matches!(&e, EgdbError::Unreadable { path: at, .. } if Path::new(at) != path) =>
                {
                    format!("{}: {e}", path.display())
                }
                // The listing's summary says what to delete first: no advice on each line.
                e => e.message_with(&mut |_, repair| {
                    (repair == Repair::Rebuild).then(|| REBUILD_ADVICE.to_string())
                }),
            });
            out.push(LayerInfo {
                path,
                header,
                unreadable,
                bytes,
            });
        }
    }
    Ok(out)
}
