//! `kalah`, the Python module: the rules, the exact solver and the engine of the kalah
//! workspace, for Python programs (bots, notebooks, training loops, analyses).
//!
//! A thin layer over `kalah-core`, `kalah-solver` and `kalah-engine`: every rule, value and
//! choice is theirs. What it adds is Python's shape: a `Position` carries its `Rules` (so
//! `position.play(3)` needs nothing else), actions are house numbers (`int`, 1..m in the mover's
//! sowing order) or `"swap"`, whole turns are text (`"3-6"`), positions are immutable, hashable
//! and picklable, and bad input raises `ValueError` (or `IllegalMoveError`, a subclass) with
//! the same message the command line gives. Searches run with the GIL released, on a thread of
//! their own, and stop on Ctrl-C (`KeyboardInterrupt`): the signal is looked at every 50 ms.
//!
//! Built with maturin (`pip install ./crates/kalah-python`); docs/PYTHON.md is the user's guide,
//! `kalah.pyi` the type stubs.

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use kalah_core::{
    turn_texts, CaptureRule, EndRule, GameRecord, LeftoverRule, Move, Outcome, Position, Rules,
    Side, Start, Turn,
};
use kalah_egdb::{BuildPlan, Egdb};
use kalah_engine::{Engine, Level, Limits};
use kalah_solver::{
    analyze_moves_parallel, analyze_turns_parallel, ParallelOptions, SearchLimits, SolveError,
    Solver, MAX_THREADS,
};
use pyo3::create_exception;
use pyo3::exceptions::{
    PyException, PyFileNotFoundError, PyOSError, PyRuntimeError, PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString, PyTuple};
use pyo3::Borrowed;

create_exception!(
    kalah,
    IllegalMoveError,
    PyValueError,
    "An action or a turn that cannot be played in the position (a ValueError)."
);
create_exception!(
    kalah,
    SearchStopped,
    PyException,
    "A search stopped by its time or node limit before it finished. Attributes: lower and \
     upper, the bounds it proved for the value of the position searched (final store \
     difference, side to move's view; equal when the value was proven but the best turns, or \
     the other actions' values, were not finished), and nodes, the work done."
);

/// A `ValueError` carrying `err`'s message.
fn value_error(err: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(err.to_string())
}

// ---------------------------------------------------------------------------------------------
// Rules

/// The rules of a game: capture rule, end rule, leftovers, majority end, pie rule and the
/// first-move extra turn.
///
/// `Rules()` is standard Kalah; `Rules("capture=empty pie=on")` reads the text form (the Rules
/// tag of a game record, `kalah --rules`; keys left out are standard); keyword arguments set
/// single rules, over the text: `Rules(capture="empty", pie=True)`.
#[pyclass(module = "kalah", name = "Rules", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct PyRules(Rules);

#[pymethods]
impl PyRules {
    #[new]
    #[pyo3(signature = (text=None, *, capture=None, end=None, leftovers=None, majority_end=None, pie=None, first_move_extra_turn=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        text: Option<&Bound<'_, PyAny>>,
        capture: Option<&str>,
        end: Option<&str>,
        leftovers: Option<&str>,
        majority_end: Option<bool>,
        pie: Option<bool>,
        first_move_extra_turn: Option<bool>,
    ) -> PyResult<Self> {
        let mut rules = rules_arg(text)?;
        if let Some(c) = capture {
            rules.capture = c.parse::<CaptureRule>().map_err(value_error)?;
        }
        if let Some(e) = end {
            rules.end = e.parse::<EndRule>().map_err(value_error)?;
        }
        if let Some(l) = leftovers {
            rules.leftovers = l.parse::<LeftoverRule>().map_err(value_error)?;
        }
        if let Some(m) = majority_end {
            rules.majority_end = m;
        }
        if let Some(p) = pie {
            rules.pie = p;
        }
        if let Some(f) = first_move_extra_turn {
            rules.first_move_extra_turn = f;
        }
        Ok(PyRules(rules))
    }

    /// `"standard"` or `"empty"` (the lone seed is captured even when the facing house is
    /// empty).
    #[getter]
    fn capture(&self) -> String {
        self.0.capture.to_string()
    }

    /// When the game ends: `"row-empty"` (standard: as soon as a row is empty) or
    /// `"mover-blocked"` (when the player to move cannot move).
    #[getter]
    fn end(&self) -> String {
        self.0.end.to_string()
    }

    /// Where the seeds left in the houses go at the end: `"owner"` (standard), `"emptier"` or
    /// `"nobody"`.
    #[getter]
    fn leftovers(&self) -> String {
        self.0.leftovers.to_string()
    }

    /// Whether the game stops once a store holds more than half of the seeds.
    #[getter]
    fn majority_end(&self) -> bool {
        self.0.majority_end
    }

    /// Whether North may swap sides instead of answering South's first turn.
    #[getter]
    fn pie(&self) -> bool {
        self.0.pie
    }

    /// Whether South's very first sowing can earn an extra turn (`False`: the Manchester
    /// tournament rule).
    #[getter]
    fn first_move_extra_turn(&self) -> bool {
        self.0.first_move_extra_turn
    }

    fn __str__(&self) -> String {
        self.0.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Rules('{}')", self.0)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let cls = py.get_type::<PyRules>();
        (cls, (slf.get().0.to_string(),)).into_pyobject(py)
    }
}

/// The rules given to a function: a `Rules`, its text form, or `None` (standard Kalah).
fn rules_arg(rules: Option<&Bound<'_, PyAny>>) -> PyResult<Rules> {
    let Some(obj) = rules else {
        return Ok(Rules::STANDARD);
    };
    if obj.is_none() {
        return Ok(Rules::STANDARD);
    }
    if let Ok(r) = obj.cast::<PyRules>() {
        return Ok(r.get().0);
    }
    if let Ok(text) = obj.cast::<PyString>() {
        return text.to_str()?.parse::<Rules>().map_err(value_error);
    }
    Err(PyTypeError::new_err(
        "rules must be a kalah.Rules, the rules' text (\"capture=empty pie=on\") or None",
    ))
}

// ---------------------------------------------------------------------------------------------
// Actions

/// An action from Python: a house number (`int`, or any integer with `__index__`, such as
/// numpy's; 1..m in the mover's sowing order), its text (`"3"`), or `"swap"`.
fn move_arg(obj: &Bound<'_, PyAny>, houses: usize) -> PyResult<Move> {
    if let Ok(text) = obj.cast::<PyString>() {
        return text
            .to_str()?
            .parse::<Move>()
            .map_err(|e| IllegalMoveError::new_err(e.to_string()));
    }
    let no_house = || {
        IllegalMoveError::new_err(format!(
            "there is no house {obj}: houses are numbered 1 to {houses}"
        ))
    };
    match obj.extract::<Int>() {
        Ok(Int(h)) => u8::try_from(h).map(Move::Sow).map_err(|_| no_house()),
        Err(e) if e.is_instance_of::<PyTypeError>(obj.py()) => Err(PyTypeError::new_err(format!(
            "an action is a house number (int) or 'swap': {}",
            e.value(obj.py())
        ))),
        Err(_) => Err(no_house()),
    }
}

/// An action for Python: the house number as an `int`, or `"swap"`.
fn move_py(py: Python<'_>, mv: Move) -> PyResult<Py<PyAny>> {
    Ok(match mv {
        Move::Sow(h) => h.into_pyobject(py)?.into_any().unbind(),
        Move::Swap => "swap".into_pyobject(py)?.into_any().unbind(),
    })
}

/// Seed counts as a list of `int` (a `Vec<u8>` would become `bytes`).
fn counts(pits: &[u8]) -> Vec<u32> {
    pits.iter().map(|&n| u32::from(n)).collect()
}

/// A side from Python: `"S"`, `"N"`, `"South"` or `"North"` (any case).
fn side_arg(text: &str) -> PyResult<Side> {
    text.parse::<Side>().map_err(value_error)
}

// ---------------------------------------------------------------------------------------------
// Positions

/// A position and the rules it is played under. Immutable: `play` returns a new position.
///
/// `Position("4,4,4,4,4,4,0,4,4,4,4,4,4,0 S")` reads the bin-order text (South houses 1..m,
/// South store, North houses 1..m, North store, side to move); `Position.start(6, 4)` is the
/// start of Kalah(6,4). Both take `rules=` (a `Rules`, its text, or `None` for standard Kalah).
#[pyclass(module = "kalah", name = "Position", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct PyPosition {
    pos: Position,
    rules: Rules,
}

impl PyPosition {
    fn of(&self, pos: Position) -> PyPosition {
        PyPosition {
            pos,
            rules: self.rules,
        }
    }

    /// The position with the rules' end applied: a position written with an empty row (under
    /// the standard end) is over, its leftovers swept. What every query and search starts from;
    /// `str()` keeps the position as written.
    fn settled(&self) -> Position {
        let mut p = self.pos;
        p.settle(&self.rules);
        p
    }

    /// A line of actions from this position (a principal variation) in whole turns.
    fn turn_texts(&self, line: &[Move]) -> Vec<String> {
        turn_texts(&self.settled(), &self.rules, line)
    }
}

#[pymethods]
impl PyPosition {
    #[new]
    #[pyo3(signature = (text, rules=None))]
    fn new(text: &str, rules: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let rules = rules_arg(rules)?;
        let pos: Position = text.parse().map_err(value_error)?;
        if let Some(problem) = pos.phase_tag_problem(&rules) {
            return Err(PyValueError::new_err(format!("the position's {problem}")));
        }
        Ok(PyPosition { pos, rules })
    }

    /// The start of Kalah(houses, seeds) under `rules`, or of a custom layout: `layout` gives
    /// the seeds of South's houses 1..m (North's the same from its own side, or facing South's
    /// with `mirrored=True`), and then `houses` and `seeds` are not used.
    #[staticmethod]
    #[pyo3(
        signature = (houses=Int(6), seeds=Int(4), rules=None, *, layout=None, mirrored=false),
        text_signature = "(houses=6, seeds=4, rules=None, *, layout=None, mirrored=False)"
    )]
    fn start(
        houses: Int,
        seeds: Int,
        rules: Option<&Bound<'_, PyAny>>,
        layout: Option<Vec<Int>>,
        mirrored: bool,
    ) -> PyResult<Self> {
        let rules = rules_arg(rules)?;
        let start = match layout {
            Some(l) => {
                let l = l
                    .into_iter()
                    .map(|n| n.within("a layout's seeds", 0, 255))
                    .collect::<PyResult<Vec<u8>>>()?;
                Start::layout(&l, mirrored)
            }
            None => Start::uniform(
                houses.within("houses", 1, kalah_core::MAX_HOUSES as i128)?,
                seeds.within("seeds", 0, 255)?,
            ),
        }
        .map_err(value_error)?;
        Ok(PyPosition {
            pos: Position::start(&start, &rules),
            rules,
        })
    }

    /// The rules the position is played under.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules(self.rules)
    }

    /// Houses a side (m).
    #[getter]
    fn houses(&self) -> usize {
        self.pos.houses()
    }

    /// Seed counts in bin order: South houses 1..m, South store, North houses 1..m, North
    /// store (2m+2 numbers).
    #[getter]
    fn bins(&self) -> Vec<u32> {
        counts(self.pos.pits())
    }

    /// Seeds in `side`'s houses 1..m (its sowing order; `side` is `"S"`, `"N"`, `"South"` or
    /// `"North"`).
    fn row(&self, side: &str) -> PyResult<Vec<u32>> {
        Ok(counts(self.pos.row(side_arg(side)?)))
    }

    /// Seeds in `side`'s store.
    fn store(&self, side: &str) -> PyResult<u8> {
        Ok(self.pos.store(side_arg(side)?))
    }

    /// Seeds on the board, stores included.
    #[getter]
    fn seeds(&self) -> u32 {
        self.pos.total_seeds()
    }

    /// The side to move, `"S"` or `"N"`, or `None` once the game is over.
    #[getter(to_move)]
    fn side_to_move(&self) -> Option<String> {
        self.settled().to_move().map(|s| s.letter().to_string())
    }

    /// Whether the game is over (under the rules: a position written with an empty row is
    /// over under the standard end rule even before its sweep).
    #[getter]
    fn is_over(&self) -> bool {
        self.settled().is_over()
    }

    /// The final stores `(south, north)` once the game is over (after the sweep), else `None`.
    #[getter]
    fn score(&self) -> Option<(u8, u8)> {
        self.pos.score(&self.rules).map(|[s, n]| (s, n))
    }

    /// The legal actions: house numbers of the side to move, then `"swap"` where the pie
    /// rule allows it; empty once the game is over.
    fn legal_moves(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        self.settled()
            .legal_moves(&self.rules)
            .iter()
            .map(|&mv| move_py(py, mv))
            .collect()
    }

    /// The position after one action (a house number, or `"swap"`). An extra turn leaves the
    /// same side to move.
    ///
    /// Raises IllegalMoveError (a ValueError) for an action that cannot be played.
    fn play(&self, action: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
        Ok(self.step(action)?.0)
    }

    /// The position after one action, and what the action did (`Outcome`).
    ///
    /// Raises IllegalMoveError (a ValueError) for an action that cannot be played.
    fn step(&self, action: &Bound<'_, PyAny>) -> PyResult<(PyPosition, PyOutcome)> {
        let mv = move_arg(action, self.pos.houses())?;
        let mut p = self.settled();
        let out = p
            .play(&self.rules, mv)
            .map_err(|e| IllegalMoveError::new_err(e.to_string()))?;
        Ok((self.of(p), PyOutcome::of(&out)))
    }

    /// The position after a whole turn written as text (`"3-6"`: the actions of one player's
    /// turn, each but the last earning an extra turn), or after the start of one (`"3-"`: its
    /// last action earns an extra turn, as principal variations and records write a turn they
    /// leave unfinished).
    ///
    /// Raises IllegalMoveError (a ValueError) for a turn that cannot be played as written.
    fn play_turn(&self, turn: &str) -> PyResult<PyPosition> {
        let (t, end) = Turn::parse_written(turn)
            .map_err(|e: kalah_core::MoveError| IllegalMoveError::new_err(e.to_string()))?;
        let mut p = self.settled();
        t.play_as(&mut p, &self.rules, end)
            .map_err(|e| IllegalMoveError::new_err(e.to_string()))?;
        Ok(self.of(p))
    }

    /// Every whole turn of the side to move (chains of extra turns expanded) with the position
    /// after it: `[("1", Position), ("3-6", Position), ...]`.
    fn turns(&self) -> Vec<(String, PyPosition)> {
        Turn::all(&self.settled(), &self.rules)
            .into_iter()
            .map(|(t, after)| (t.to_string(), self.of(after)))
            .collect()
    }

    /// The same position with South and North exchanged (the value is unchanged).
    ///
    /// Raises ValueError for a position in an opening phase of the pie rule or the Manchester
    /// first move: those rules name South and North, so no flipped position has the same value
    /// (tester 117: the phase was dropped, and the value changed).
    fn flipped(&self) -> PyResult<PyPosition> {
        if !self.pos.is_over() {
            if let Some(tag) = self.pos.phase().tag() {
                return Err(PyValueError::new_err(format!(
                    "a position in the opening phase '{tag}' cannot be flipped: the opening \
                     rules (pie rule, first move) name South and North"
                )));
            }
        }
        Ok(self.of(self.pos.flipped()))
    }

    fn __str__(&self) -> String {
        self.pos.to_string()
    }

    fn __repr__(&self) -> String {
        if self.rules == Rules::STANDARD {
            format!("Position('{}')", self.pos)
        } else {
            format!("Position('{}', rules='{}')", self.pos, self.rules)
        }
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let me = slf.get();
        let cls = py.get_type::<PyPosition>();
        (cls, (me.pos.to_string(), me.rules.to_string())).into_pyobject(py)
    }
}

/// What one action did.
#[pyclass(module = "kalah", name = "Outcome", frozen, get_all)]
#[derive(Clone)]
struct PyOutcome {
    /// Seeds taken from the house (0 for a swap).
    sown: u8,
    /// The mover moves again (the last seed fell into the mover's store).
    extra_turn: bool,
    /// Seeds moved into the mover's store by a capture, the landing seed included (0: none).
    captured: u8,
    /// The action was a pie-rule swap.
    swapped: bool,
    /// Why the game ended with this action (`"South's row is empty"`, ...), or `None`.
    ended: Option<String>,
}

impl PyOutcome {
    fn of(out: &Outcome) -> PyOutcome {
        PyOutcome {
            sown: out.sown,
            extra_turn: out.extra_turn,
            captured: out.captured,
            swapped: out.swapped,
            ended: out.ended.map(|e| e.to_string()),
        }
    }
}

#[pymethods]
impl PyOutcome {
    /// An outcome from its fields (for pickle).
    #[new]
    fn new(sown: u8, extra_turn: bool, captured: u8, swapped: bool, ended: Option<String>) -> Self {
        PyOutcome {
            sown,
            extra_turn,
            captured,
            swapped,
            ended,
        }
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let m = slf.get();
        let fields = (m.sown, m.extra_turn, m.captured, m.swapped, m.ended.clone());
        (slf.get_type(), fields).into_pyobject(slf.py())
    }

    fn __repr__(&self) -> String {
        format!(
            "Outcome(sown={}, extra_turn={}, captured={}, swapped={}, ended={})",
            self.sown,
            py_bool(self.extra_turn),
            self.captured,
            py_bool(self.swapped),
            self.ended
                .as_ref()
                .map_or("None".to_string(), |e| format!("'{e}'"))
        )
    }
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

// ---------------------------------------------------------------------------------------------
// Endgame databases

/// Endgame databases of one board size and rule set, built by `kalah egdb build`, opened
/// (memory-mapped) for `solve`, `analyze`, `Engine` and `probe`: `Egdb(houses=6,
/// rules="capture=empty")` opens the set in the per-user directory (`~/.local/share/kalah/egdb`
/// on Linux), `Egdb(dir="/data/egdb")` one in another root. Only the capture, end and leftover
/// rules choose the set; the majority end has none.
///
/// Raises FileNotFoundError when there is no such set (the message names the build command),
/// ValueError for a damaged, truncated or outdated file.
#[pyclass(module = "kalah", name = "Egdb", frozen)]
struct PyEgdb(Arc<Egdb>);

#[pymethods]
impl PyEgdb {
    #[new]
    #[pyo3(
        signature = (dir=None, houses=Int(6), rules=None),
        text_signature = "(dir=None, houses=6, rules=None)"
    )]
    fn new(
        py: Python<'_>,
        dir: Option<PathBuf>,
        houses: Int,
        rules: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let rules = rules_arg(rules)?;
        let houses: usize = houses.within("houses", 1, kalah_core::MAX_HOUSES as i128)?;
        if rules.outcome_depends_on_stores() {
            return Err(PyValueError::new_err(
                "there are no endgame databases for the majority end (its outcome depends on \
                 the stores)",
            ));
        }
        let root = root_arg(dir)?;
        if !root.is_dir() {
            return Err(PyFileNotFoundError::new_err(format!(
                "{} is not a directory of endgame databases",
                root.display()
            )));
        }
        let opened = py.detach(|| Egdb::open(&root, houses, &rules));
        match opened {
            Ok(Some(db)) => Ok(PyEgdb(Arc::new(db))),
            Ok(None) => Err(PyFileNotFoundError::new_err(format!(
                "no endgame databases of Kalah({houses},·) under {} in {}: `{}` builds them \
                 (docs/EGDB.md)",
                set_rules_text(&rules),
                root.display(),
                // To 20 seeds: 226 MB for 6 houses, the build docs/EGDB.md starts with.
                kalah_egdb::build_command(houses, &rules, 20, None)
            ))),
            Err(e) => Err(egdb_error(e)),
        }
    }

    /// Builds the set's layers 0..=max_seeds (seeds in the houses) in `dir` (default: the
    /// per-user directory), as `kalah egdb build` does, and opens it. Layers already built are
    /// kept, so a larger `max_seeds` later builds only the new ones. Kalah(6,·) to 16 seeds
    /// takes a few seconds and 30 MB, to 20 seeds about 20 s a core and 226 MB (docs/EGDB.md);
    /// the build holds every layer in memory. `threads`: default every core. Ctrl-C stops it (the layers
    /// finished stay) and raises KeyboardInterrupt.
    ///
    /// Raises ValueError for a plan that cannot be built (the majority end, too many seeds, more
    /// memory than the machine has), OSError when the files cannot be written.
    #[staticmethod]
    #[pyo3(
        signature = (dir=None, houses=Int(6), max_seeds=Int(16), rules=None, *, threads=None),
        text_signature = "(dir=None, houses=6, max_seeds=16, rules=None, *, threads=None)"
    )]
    fn build(
        py: Python<'_>,
        dir: Option<PathBuf>,
        houses: Int,
        max_seeds: Int,
        rules: Option<&Bound<'_, PyAny>>,
        threads: Option<Int>,
    ) -> PyResult<Self> {
        let rules = rules_arg(rules)?;
        let houses: usize = houses.within("houses", 1, kalah_core::MAX_HOUSES as i128)?;
        let max_seeds: u32 = max_seeds.within("max_seeds", 0, 255)?;
        let threads = threads.map(threads_arg).transpose()?;
        let root = root_arg(dir)?;
        let plan = BuildPlan {
            root: root.clone(),
            houses,
            rules,
            max_seeds,
            threads,
        };
        let need = plan.total_positions().map_err(egdb_error)?;
        if let Some(mib) = kalah_solver::memory_mib() {
            let have = mib as u64 * (1 << 20);
            if need > have / 4 * 3 {
                return Err(PyValueError::new_err(format!(
                    "layers 0..={max_seeds} of Kalah({houses},·) need {} MB of memory to build, \
                     and this machine has {} MB",
                    need / 1_000_000,
                    have / 1_000_000
                )));
            }
        }
        let stop = AtomicBool::new(false);
        run_detached(py, &stop, || plan.run(&stop, &|_| {}))?.map_err(egdb_error)?;
        let rules_obj = PyRules(rules).into_pyobject(py)?.into_any();
        PyEgdb::new(py, Some(root), Int(houses as i128), Some(&rules_obj))
    }

    /// Houses a side of the set's board.
    #[getter]
    fn houses(&self) -> usize {
        self.0.houses()
    }

    /// The largest layer: positions with at most this many seeds in the houses are answered.
    #[getter]
    fn max_seeds(&self) -> u32 {
        self.0.max_seeds()
    }

    /// The set's directory.
    #[getter]
    fn dir(&self) -> PathBuf {
        self.0.dir().to_path_buf()
    }

    /// The value of `position` (final store difference, side to move minus opponent, with
    /// perfect play) read from the databases, or `None` when they do not cover it (more seeds
    /// in the houses than `max_seeds`, another board or rule set, a finished game, an opening
    /// phase of the pie rule or the Manchester first move).
    fn probe(&self, position: &PyPosition) -> Option<i32> {
        let p = position.settled();
        if p.is_over() {
            return None;
        }
        let gain = self.0.probe(&p, &position.rules)?;
        Some(p.store_diff(p.side()) + gain)
    }

    fn __repr__(&self) -> String {
        format!(
            "Egdb(dir='{}', houses={}, max_seeds={})",
            self.0.dir().display(),
            self.0.houses(),
            self.0.max_seeds()
        )
    }
}

/// The database root: `dir`, or the per-user directory.
fn root_arg(dir: Option<PathBuf>) -> PyResult<PathBuf> {
    match dir {
        Some(d) => Ok(d),
        None => kalah_egdb::default_dir()
            .ok_or_else(|| PyFileNotFoundError::new_err("no home directory: give dir=")),
    }
}

/// An `OSError` for a database file that cannot be read or written, else a `ValueError`.
fn egdb_error(e: kalah_egdb::EgdbError) -> PyErr {
    match e {
        kalah_egdb::EgdbError::Io { .. } => PyOSError::new_err(e.to_string()),
        _ => value_error(e),
    }
}

/// The rules that choose a database set, as text (`capture=empty end=row-empty leftovers=owner`).
fn set_rules_text(rules: &Rules) -> String {
    format!(
        "capture={} end={} leftovers={}",
        rules.capture, rules.end, rules.leftovers
    )
}

/// The databases given to a search, checked against the position's board and rules.
fn egdb_arg(egdb: Option<&PyEgdb>, p: &PyPosition) -> PyResult<Option<Arc<Egdb>>> {
    let Some(db) = egdb else {
        return Ok(None);
    };
    if db.0.houses() != p.pos.houses() || !db.0.serves(&p.rules) {
        return Err(PyValueError::new_err(format!(
            "the databases serve Kalah({},·) under {}, not this position's Kalah({},·) under {}",
            db.0.houses(),
            set_rules_text(db.0.rules()),
            p.pos.houses(),
            p.rules
        )));
    }
    Ok(Some(Arc::clone(&db.0)))
}

// ---------------------------------------------------------------------------------------------
// Searches: on a thread of their own, the GIL released, stopped by Ctrl-C

/// Runs `work` on a scoped thread with the GIL released, checking for signals (Ctrl-C) every
/// 50 ms; on one, sets `stop`, waits for `work` to return and raises the signal's exception
/// (`KeyboardInterrupt`). A panic in `work` is raised again here (pyo3 turns it into a
/// `PanicException`).
fn run_detached<T: Send>(
    py: Python<'_>,
    stop: &AtomicBool,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|s| {
        s.spawn(move || {
            let _ = tx.send(std::panic::catch_unwind(AssertUnwindSafe(work)));
        });
        let mut rx = rx;
        loop {
            // The receiver goes into the released section and comes back with the message
            // (a `&Receiver` cannot: it is not `Sync`).
            let (back, got) = py.detach(move || {
                let got = rx.recv_timeout(Duration::from_millis(50));
                (rx, got)
            });
            rx = back;
            match got {
                Ok(Ok(value)) => return Ok(value),
                Ok(Err(panic)) => std::panic::resume_unwind(panic),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let Err(signal) = py.check_signals() {
                        stop.store(true, Ordering::Relaxed);
                        let _ = py.detach(move || rx.recv());
                        return Err(signal);
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(PyRuntimeError::new_err(
                        "the search thread ended without a result",
                    ))
                }
            }
        }
    })
}

/// An integer argument: an `int`, or any integer with `__index__` (numpy's), never a `bool`
/// (`True` would pass for 1). Its range is checked where it is used, with the argument's name
/// ([`Int::within`]), so that a negative or huge number is a `ValueError` naming it (pyo3's
/// unsigned conversions raised a bare `OverflowError`: tester 117).
#[derive(Clone, Copy)]
struct Int(i128);

impl<'a, 'py> FromPyObject<'a, 'py> for Int {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if obj.is_instance_of::<PyBool>() {
            return Err(PyTypeError::new_err("expected an int, not a bool"));
        }
        if !(obj.is_instance_of::<PyInt>() || obj.hasattr("__index__")?) {
            return Err(PyTypeError::new_err(format!(
                "expected an int, not {}",
                obj.get_type().name()?
            )));
        }
        obj.extract::<i128>()
            .map(Int)
            .map_err(|_| PyValueError::new_err(format!("{} is out of range", &*obj)))
    }
}

impl Int {
    /// The value as a `T`, if it lies in `lo..=hi`; else a `ValueError` naming the argument.
    fn within<T: TryFrom<i128>>(self, name: &str, lo: i128, hi: i128) -> PyResult<T> {
        let out =
            || PyValueError::new_err(format!("{name} must be from {lo} to {hi}, not {}", self.0));
        if self.0 < lo || self.0 > hi {
            return Err(out());
        }
        T::try_from(self.0).map_err(|_| out())
    }
}

/// A time limit in seconds: an `int` or a `float`, never a `bool`.
#[derive(Clone, Copy)]
struct Seconds(f64);

impl<'a, 'py> FromPyObject<'a, 'py> for Seconds {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if obj.is_instance_of::<PyBool>() {
            return Err(PyTypeError::new_err(
                "expected a number of seconds, not a bool",
            ));
        }
        obj.extract::<f64>().map(Seconds)
    }
}

/// A search's limits from Python: `time_limit` in seconds (infinity: none), `node_limit` in
/// nodes.
fn limits_arg(time_limit: Option<Seconds>, node_limit: Option<Int>) -> PyResult<Limits> {
    let time = match time_limit.map(|t| t.0) {
        None => None,
        Some(t) if t == f64::INFINITY => None,
        Some(t) if t.is_finite() && t > 0.0 => Some(
            Duration::try_from_secs_f64(t)
                .map_err(|_| PyValueError::new_err(format!("time_limit {t:e} s is too long")))?,
        ),
        Some(t) => {
            return Err(PyValueError::new_err(format!(
                "time_limit must be a number of seconds above 0, not {t}"
            )))
        }
    };
    let nodes = match node_limit {
        None => None,
        Some(n) => Some(n.within("node_limit", 1, i128::from(u64::MAX))?),
    };
    Ok(Limits { time, nodes })
}

fn threads_arg(threads: Int) -> PyResult<usize> {
    threads.within("threads", 1, MAX_THREADS as i128)
}

/// A `table_mib` argument: at least 1 (see [`table_arg`] for the upper bound).
fn table_mib_arg(table_mib: Option<Int>) -> PyResult<Option<usize>> {
    table_mib
        .map(|n| n.within("table_mib", 1, i128::from(u64::MAX)))
        .transpose()
}

/// The table size in MiB: `table_mib` if given (at least 1, at most the machine's memory), or
/// the solver's default for the position, the databases' largest layer `top` and the limits.
fn table_arg(
    table_mib: Option<usize>,
    p: &PyPosition,
    top: Option<u32>,
    limits: &Limits,
) -> PyResult<usize> {
    match table_mib {
        Some(0) => Err(PyValueError::new_err(
            "table_mib must be at least 1 (MiB of transposition table)",
        )),
        Some(n) => match kalah_solver::memory_mib() {
            Some(total) if n > total => Err(PyValueError::new_err(format!(
                "table_mib {n} is more than this machine's memory ({total} MiB)"
            ))),
            _ => Ok(n),
        },
        None => Ok(kalah_solver::default_table_mib(
            &p.rules,
            &p.pos,
            top,
            limits
                .time
                .map(|t| t.as_millis().try_into().unwrap_or(u64::MAX)),
            limits.nodes,
        )),
    }
}

/// What a search is given besides its position: threads, table, limits, databases.
struct SearchArgs<'a> {
    threads: usize,
    table_mib: Option<usize>,
    limits: Limits,
    egdb: Option<&'a PyEgdb>,
}

/// `args.threads` solvers for `p`, with the limits, the databases and one stop flag. They
/// share one table, except for the small default table of databases that reach the position:
/// then each has its own, as `kalah analyze` does (docs/BENCHMARKS.md, "Table size with
/// databases").
fn solvers(p: &PyPosition, args: &SearchArgs, stop: &Arc<AtomicBool>) -> PyResult<Vec<Solver>> {
    let egdb = egdb_arg(args.egdb, p)?;
    let top = egdb.as_ref().map(|db| db.max_seeds());
    let mib = table_arg(args.table_mib, p, top, &args.limits)?;
    let own_tables =
        args.table_mib.is_none() && kalah_solver::egdb_reaches(p.pos.seeds_in_houses(), top);
    let new_solver = |first: Option<&Solver>| {
        let mut s = match first {
            Some(f) if !own_tables => f.with_shared_table(),
            _ => Solver::new(p.rules, mib),
        };
        if let Some(db) = &egdb {
            s.set_egdb(Some(Arc::clone(db)));
        }
        s.set_limits(SearchLimits::new(args.limits.time, args.limits.nodes));
        s.set_stop_flag(Arc::clone(stop));
        s
    };
    let first = new_solver(None);
    let mut all: Vec<Solver> = (1..args.threads)
        .map(|_| new_solver(Some(&first)))
        .collect();
    all.insert(0, first);
    Ok(all)
}

/// The `SearchStopped` exception for a stop by a limit, or the `KeyboardInterrupt` of a
/// Ctrl-C (already raised by [`run_detached`]).
fn stopped_error(py: Python<'_>, err: SolveError) -> PyErr {
    let SolveError::Stopped {
        lower,
        upper,
        stats,
    } = err;
    let e = SearchStopped::new_err(err_text(lower, upper, stats.nodes));
    let v = e.value(py);
    let _ = v.setattr("lower", lower);
    let _ = v.setattr("upper", upper);
    let _ = v.setattr("nodes", stats.nodes);
    e
}

fn err_text(lower: i32, upper: i32, nodes: u64) -> String {
    if lower == upper {
        // Tester 117: "the value lies between +10 and +10".
        format!(
            "search stopped after {nodes} nodes: the value is {lower:+} (proven), but the rest \
             (every best turn, or the other actions' values) was not finished"
        )
    } else {
        format!(
            "search stopped after {nodes} nodes; the value lies between {lower:+} and {upper:+}"
        )
    }
}

/// The exact solution of a position.
#[pyclass(module = "kalah", name = "Solution", frozen, get_all)]
#[derive(Clone)]
struct PySolution {
    /// The value: final store difference, side to move minus opponent, with perfect play.
    value: i32,
    /// Every best whole turn (`["3-6"]`), in legal-move order.
    best: Vec<String>,
    /// A principal variation in whole turns (`["3-6", "2-1", "5", ...]`) to the end of the game.
    pv: Vec<String>,
    /// Nodes searched.
    nodes: u64,
    /// Transposition-table hits.
    tt_hits: u64,
    /// Wall-clock seconds.
    seconds: f64,
}

#[pymethods]
impl PySolution {
    /// A solution from its fields (for pickle).
    #[new]
    fn new(
        value: i32,
        best: Vec<String>,
        pv: Vec<String>,
        nodes: u64,
        tt_hits: u64,
        seconds: f64,
    ) -> Self {
        PySolution {
            value,
            best,
            pv,
            nodes,
            tt_hits,
            seconds,
        }
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let m = slf.get();
        let fields = (
            m.value,
            m.best.clone(),
            m.pv.clone(),
            m.nodes,
            m.tt_hits,
            m.seconds,
        );
        (slf.get_type(), fields).into_pyobject(slf.py())
    }

    fn __repr__(&self) -> String {
        format!(
            "Solution(value={:+}, best={:?}, pv={:?}, nodes={}, seconds={:.3})",
            self.value, self.best, self.pv, self.nodes, self.seconds
        )
    }
}

/// The exact value of `position` (final store difference, side to move minus opponent, with
/// perfect play by both), every best whole turn and a principal variation.
///
/// `threads` share one transposition table of `table_mib` MiB (default: by the position, as
/// `kalah solve`). `time_limit` (seconds) and `node_limit` stop the search: it then raises
/// SearchStopped with the bounds proven. Ctrl-C stops it and raises KeyboardInterrupt.
/// `egdb` (an `Egdb` of the position's board and rules) answers positions of few seeds.
#[pyfunction]
#[pyo3(
    signature = (position, *, threads=Int(1), table_mib=None, time_limit=None, node_limit=None, egdb=None),
    text_signature = "(position, *, threads=1, table_mib=None, time_limit=None, node_limit=None, egdb=None)"
)]
fn solve(
    py: Python<'_>,
    position: &PyPosition,
    threads: Int,
    table_mib: Option<Int>,
    time_limit: Option<Seconds>,
    node_limit: Option<Int>,
    egdb: Option<&PyEgdb>,
) -> PyResult<PySolution> {
    let threads = threads_arg(threads)?;
    // One solver: `solve_with_best_turns` makes its other threads' solvers itself, on its table.
    let args = SearchArgs {
        threads: 1,
        table_mib: table_mib_arg(table_mib)?,
        limits: limits_arg(time_limit, node_limit)?,
        egdb,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let mut solver = solvers(position, &args, &stop)?.remove(0);
    let pos = position.pos;
    let result = run_detached(py, &stop, || solver.solve_with_best_turns(&pos, threads))?;
    let (sol, best) = result.map_err(|e| stopped_error(py, e))?;
    Ok(PySolution {
        value: sol.value,
        best: best.iter().map(Turn::to_string).collect(),
        pv: position.turn_texts(&sol.pv),
        nodes: sol.stats.nodes,
        tt_hits: sol.stats.tt_hits,
        seconds: sol.stats.elapsed.as_secs_f64(),
    })
}

/// The exact value of every legal action of `position` (`[(3, 10), (1, 6), ...]`, house
/// numbers or `"swap"`), or with `turns=True` of every whole turn (`[("3-6", 10), ...]`), in
/// legal-move order. Values are from the view of the side to move in `position`.
///
/// Limits, threads and databases as `solve`; a stop by a limit raises SearchStopped.
#[pyfunction]
#[pyo3(
    signature = (position, *, turns=false, threads=Int(1), table_mib=None, time_limit=None, node_limit=None, egdb=None),
    text_signature = "(position, *, turns=False, threads=1, table_mib=None, time_limit=None, node_limit=None, egdb=None)"
)]
#[allow(clippy::too_many_arguments)]
fn analyze(
    py: Python<'_>,
    position: &PyPosition,
    turns: bool,
    threads: Int,
    table_mib: Option<Int>,
    time_limit: Option<Seconds>,
    node_limit: Option<Int>,
    egdb: Option<&PyEgdb>,
) -> PyResult<Vec<(Py<PyAny>, i32)>> {
    let args = SearchArgs {
        threads: threads_arg(threads)?,
        table_mib: table_mib_arg(table_mib)?,
        limits: limits_arg(time_limit, node_limit)?,
        egdb,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let mut all = solvers(position, &args, &stop)?;
    let pos = position.pos;
    let opts = ParallelOptions {
        stop: Some(Arc::clone(&stop)),
        ..ParallelOptions::default()
    };
    if turns {
        let rows = run_detached(py, &stop, || analyze_turns_parallel(&mut all, &pos, &opts))?
            .map_err(|e| stopped_error(py, e))?;
        rows.into_iter()
            .map(|t| {
                Ok((
                    t.turn.to_string().into_pyobject(py)?.into_any().unbind(),
                    t.value,
                ))
            })
            .collect()
    } else {
        let rows = run_detached(py, &stop, || analyze_moves_parallel(&mut all, &pos, &opts))?
            .map_err(|e| stopped_error(py, e))?;
        rows.into_iter()
            .map(|m| Ok((move_py(py, m.mv)?, m.value)))
            .collect()
    }
}

/// A depth-limited search's result.
#[pyclass(module = "kalah", name = "SearchResult", frozen, get_all)]
struct PySearchResult {
    /// The value found: exact when `exact`, else the heuristic estimate at `depth`.
    value: i32,
    /// Whether `value` is proven (the search saw the end of every line).
    exact: bool,
    /// A best action (house number or `"swap"`), or `None` once the game is over.
    best: Option<Py<PyAny>>,
    /// The principal variation in whole turns.
    pv: Vec<String>,
    /// Depth searched (plies, one per action).
    depth: u32,
    /// Nodes searched.
    nodes: u64,
}

#[pymethods]
impl PySearchResult {
    /// A result from its fields (for pickle).
    #[new]
    fn new(
        value: i32,
        exact: bool,
        best: Option<Py<PyAny>>,
        pv: Vec<String>,
        depth: u32,
        nodes: u64,
    ) -> Self {
        PySearchResult {
            value,
            exact,
            best,
            pv,
            depth,
            nodes,
        }
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let m = slf.get();
        let best = m.best.as_ref().map(|b| b.clone_ref(py));
        let fields = (m.value, m.exact, best, m.pv.clone(), m.depth, m.nodes);
        (slf.get_type(), fields).into_pyobject(py)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let best = match &self.best {
            Some(b) => b.bind(py).repr()?.to_string(),
            None => "None".to_string(),
        };
        Ok(format!(
            "SearchResult(value={:+}, exact={}, best={best}, pv={:?}, depth={}, nodes={})",
            self.value,
            py_bool(self.exact),
            self.pv,
            self.depth,
            self.nodes
        ))
    }
}

/// A depth-limited search of `position` to `depth` actions with the engine's heuristic
/// evaluation (store difference and seeds on each side): for positions the exact search cannot
/// finish in time.
#[pyfunction]
#[pyo3(signature = (position, depth, *, table_mib=None, egdb=None))]
fn search(
    py: Python<'_>,
    position: &PyPosition,
    depth: Int,
    table_mib: Option<Int>,
    egdb: Option<&PyEgdb>,
) -> PyResult<PySearchResult> {
    let depth: u32 = depth.within("depth", 1, i128::from(kalah_solver::MAX_DEPTH))?;
    let args = SearchArgs {
        threads: 1,
        table_mib: table_mib_arg(table_mib)?.or(Some(16)),
        limits: Limits::default(),
        egdb,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let mut solver = solvers(position, &args, &stop)?.remove(0);
    let pos = position.pos;
    let r = run_detached(py, &stop, || solver.search_depth(&pos, depth))?
        .map_err(|e| stopped_error(py, e))?;
    Ok(PySearchResult {
        value: r.value,
        exact: r.exact,
        best: r.best.map(|mv| move_py(py, mv)).transpose()?,
        pv: position.turn_texts(&r.pv),
        depth: r.depth,
        nodes: r.stats.nodes,
    })
}

/// The number of action sequences of `depth` actions from `position` (perft: each action,
/// an extra turn's included, is one ply; a finished game is a leaf). Ctrl-C stops it.
#[pyfunction]
fn perft(py: Python<'_>, position: &PyPosition, depth: Int) -> PyResult<u64> {
    let depth: u32 = depth.within("depth", 0, 1000)?;
    let stop = AtomicBool::new(false);
    let pos = position.settled();
    let rules = position.rules;
    let n = run_detached(py, &stop, || {
        kalah_core::perft_stoppable(&pos, &rules, depth, &stop)
    })?;
    n.ok_or_else(|| PyRuntimeError::new_err("perft stopped"))
}

// ---------------------------------------------------------------------------------------------
// Engine

/// The engine's choice of one action.
#[pyclass(module = "kalah", name = "Choice", frozen, get_all)]
struct PyChoice {
    /// The action to play: a house number, or `"swap"`.
    action: Py<PyAny>,
    /// The value of playing it (final store difference, the mover's view), proven or
    /// estimated, or `None` when the engine chose without a value.
    value: Option<i32>,
    /// Whether `value` is proven exact.
    exact: bool,
    /// Depth of the search that chose it (plies).
    depth: u32,
    /// Nodes searched.
    nodes: u64,
    /// The expected continuation in whole turns, starting with this action's turn.
    pv: Vec<String>,
}

#[pymethods]
impl PyChoice {
    /// A choice from its fields (for pickle).
    #[new]
    fn new(
        action: Py<PyAny>,
        value: Option<i32>,
        exact: bool,
        depth: u32,
        nodes: u64,
        pv: Vec<String>,
    ) -> Self {
        PyChoice {
            action,
            value,
            exact,
            depth,
            nodes,
            pv,
        }
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let m = slf.get();
        let fields = (
            m.action.clone_ref(py),
            m.value,
            m.exact,
            m.depth,
            m.nodes,
            m.pv.clone(),
        );
        (slf.get_type(), fields).into_pyobject(py)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let value = self.value.map_or("None".to_string(), |v| format!("{v:+}"));
        Ok(format!(
            "Choice(action={}, value={value}, exact={}, depth={}, nodes={}, pv={:?})",
            self.action.bind(py).repr()?,
            py_bool(self.exact),
            self.depth,
            self.nodes,
            self.pv
        ))
    }
}

/// A player: `Engine("expert")`. Levels, weakest first: `beginner`, `easy`, `medium`, `hard`,
/// `expert`, `perfect` (plays a proven-best action whenever the exact solver finishes within
/// the limit, else as `expert`). `seed` fixes the random choices of the lower levels; `egdb`
/// (an `Egdb`) serves the games of its board and rules.
#[pyclass(module = "kalah", name = "Engine")]
struct PyEngine {
    engine: Engine,
    stop: Arc<AtomicBool>,
}

#[pymethods]
impl PyEngine {
    #[new]
    #[pyo3(
        signature = (level="perfect", *, seed=None, threads=Int(1), table_mib=None, egdb=None),
        text_signature = "(level='perfect', *, seed=None, threads=1, table_mib=None, egdb=None)"
    )]
    fn new(
        level: &str,
        seed: Option<Int>,
        threads: Int,
        table_mib: Option<Int>,
        egdb: Option<&PyEgdb>,
    ) -> PyResult<Self> {
        let level: Level = level.parse().map_err(value_error)?;
        let threads = threads_arg(threads)?;
        let mut engine = match seed {
            Some(s) => Engine::with_seed(level, s.within("seed", 0, i128::from(u64::MAX))?),
            None => Engine::new(level),
        };
        engine.set_threads(threads);
        if let Some(mib) = table_mib_arg(table_mib)? {
            engine.set_table_mib(mib);
        }
        // The engine uses them only where their board and rules are the game's.
        engine.set_egdb(egdb.map(|db| Arc::clone(&db.0)));
        let stop = Arc::new(AtomicBool::new(false));
        engine.set_stop_flag(Arc::clone(&stop));
        Ok(PyEngine { engine, stop })
    }

    /// The level's name.
    #[getter]
    fn level(&self) -> String {
        self.engine.level().to_string()
    }

    /// The engine's choice in `position`, within `time_limit` seconds and `node_limit` nodes
    /// (default: the level's time, 2 s at `perfect`); `None` once the game is over.
    #[pyo3(signature = (position, *, time_limit=None, node_limit=None))]
    fn choose(
        slf: &Bound<'_, Self>,
        position: &PyPosition,
        time_limit: Option<Seconds>,
        node_limit: Option<Int>,
    ) -> PyResult<Option<PyChoice>> {
        let py = slf.py();
        let limits = limits_arg(time_limit, node_limit)?;
        let mut me = busy(slf)?;
        let PyEngine { engine, stop } = &mut *me;
        let limits = Limits {
            time: limits.time.or_else(|| {
                limits
                    .nodes
                    .is_none()
                    .then(|| engine.level().default_time())
            }),
            nodes: limits.nodes,
        };
        stop.store(false, Ordering::Relaxed);
        let (pos, rules) = (position.pos, position.rules);
        let choice = run_detached(py, stop, || engine.choose_with(&pos, &rules, limits))?;
        let Some(c) = choice else {
            return Ok(None);
        };
        Ok(Some(PyChoice {
            action: move_py(py, c.mv)?,
            value: c.value,
            exact: c.exact,
            depth: c.depth,
            nodes: c.nodes,
            pv: position.turn_texts(&c.pv),
        }))
    }

    /// The value of every legal action of `position`, `[(action, value, exact), ...]`: exact
    /// where the solver proves them within the limit (default 1 s), else estimated.
    #[pyo3(signature = (position, *, time_limit=None, node_limit=None))]
    fn hint(
        slf: &Bound<'_, Self>,
        position: &PyPosition,
        time_limit: Option<Seconds>,
        node_limit: Option<Int>,
    ) -> PyResult<Vec<(Py<PyAny>, i32, bool)>> {
        let py = slf.py();
        let limits = limits_arg(time_limit, node_limit)?;
        let mut me = busy(slf)?;
        let PyEngine { engine, stop } = &mut *me;
        stop.store(false, Ordering::Relaxed);
        let (pos, rules) = (position.pos, position.rules);
        let values = run_detached(py, stop, || engine.hint(&pos, &rules, limits))?;
        values
            .into_iter()
            .map(|v| Ok((move_py(py, v.mv)?, v.value, v.exact)))
            .collect()
    }

    fn __repr__(&self) -> String {
        format!("Engine('{}')", self.engine.level())
    }
}

/// The engine, for one search: a `RuntimeError` saying so when another thread's search holds
/// it (tester 117: pyo3's own "Already borrowed").
fn busy<'py>(slf: &Bound<'py, PyEngine>) -> PyResult<PyRefMut<'py, PyEngine>> {
    slf.try_borrow_mut().map_err(|_| {
        PyRuntimeError::new_err(
            "this Engine is searching in another thread: an Engine serves one thread at a time; \
             give each thread its own",
        )
    })
}

// ---------------------------------------------------------------------------------------------
// Game records

/// A game: rules, start, players, tags and every action, as `kalah play --save` and `kalah
/// referee --save-dir` write it. `GameRecord(start)` begins an empty one;
/// `GameRecord.parse(text)` reads the text or the JSON form.
#[pyclass(module = "kalah", name = "GameRecord")]
struct PyGameRecord(GameRecord);

#[pymethods]
impl PyGameRecord {
    #[new]
    fn new(start: &PyPosition) -> PyResult<Self> {
        Ok(PyGameRecord(GameRecord::new(start.rules, start.pos)))
    }

    /// Reads a game record in the text form (tags, then numbered turns) or the JSON form.
    #[staticmethod]
    fn parse(text: &str) -> PyResult<Self> {
        GameRecord::parse(text)
            .map(PyGameRecord)
            .map_err(value_error)
    }

    /// The rules.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules(self.0.rules)
    }

    /// The starting position.
    #[getter]
    fn start(&self) -> PyPosition {
        PyPosition {
            pos: self.0.start,
            rules: self.0.rules,
        }
    }

    /// The player who starts as South.
    #[getter]
    fn south(&self) -> String {
        self.0.south.clone()
    }

    /// The player who starts as North.
    #[getter]
    fn north(&self) -> String {
        self.0.north.clone()
    }

    /// The other tags, `[(name, value), ...]`.
    #[getter]
    fn tags(&self) -> Vec<(String, String)> {
        self.0.tags.clone()
    }

    /// Every action in order (house numbers and `"swap"`).
    #[getter]
    fn moves(&self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        self.0.moves().iter().map(|&mv| move_py(py, mv)).collect()
    }

    /// The whole turns in order (`["3-6", "2", ...]`; one still going on ends in `-`).
    #[getter]
    fn turns(&self) -> Vec<String> {
        turn_texts(&self.0.start, &self.0.rules, self.0.moves())
    }

    /// The position before each action and after the last (one more than the actions).
    fn positions(&self) -> Vec<PyPosition> {
        self.0
            .positions()
            .into_iter()
            .map(|pos| PyPosition {
                pos,
                rules: self.0.rules,
            })
            .collect()
    }

    /// The position after the last action.
    #[getter]
    fn position(&self) -> PyPosition {
        PyPosition {
            pos: self.0.position(),
            rules: self.0.rules,
        }
    }

    /// The final stores `(south, north)` once the game is over, else `None`.
    #[getter]
    fn result(&self) -> Option<(u8, u8)> {
        self.0.result().map(|[s, n]| (s, n))
    }

    /// Plays one more action (a house number or `"swap"`).
    ///
    /// Raises IllegalMoveError (a ValueError) for an action that cannot be played; the record
    /// is then unchanged.
    fn push(&mut self, action: &Bound<'_, PyAny>) -> PyResult<()> {
        let mv = move_arg(action, self.0.start.houses())?;
        self.0
            .push(mv)
            .map_err(|e| IllegalMoveError::new_err(e.to_string()))
    }

    /// Takes back the last action and returns it, or `None` if there is none.
    fn pop(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.0.pop().map(|mv| move_py(py, mv)).transpose()
    }

    /// The text form, as `kalah play` saves it.
    fn to_text(&self) -> String {
        self.0.to_text()
    }

    /// The JSON form.
    fn to_json(&self) -> String {
        self.0.to_json()
    }

    fn __len__(&self) -> usize {
        self.0.moves().len()
    }

    /// Pickled as its JSON form, which keeps everything (players, tags, comments).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let parse = slf.get_type().getattr("parse")?;
        (parse, (slf.borrow().0.to_json(),)).into_pyobject(slf.py())
    }

    fn __repr__(&self) -> String {
        format!(
            "GameRecord(start='{}', rules='{}', actions={})",
            self.0.start,
            self.0.rules,
            self.0.moves().len()
        )
    }
}

// ---------------------------------------------------------------------------------------------

/// Kalah: rules, positions, the exact solver and the engine (the kalah workspace's Rust crates).
#[pymodule]
fn kalah(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<PyRules>()?;
    m.add_class::<PyPosition>()?;
    m.add_class::<PyOutcome>()?;
    m.add_class::<PySolution>()?;
    m.add_class::<PySearchResult>()?;
    m.add_class::<PyChoice>()?;
    m.add_class::<PyEngine>()?;
    m.add_class::<PyGameRecord>()?;
    m.add_class::<PyEgdb>()?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add_function(wrap_pyfunction!(search, m)?)?;
    m.add_function(wrap_pyfunction!(perft, m)?)?;
    let py = m.py();
    m.add("IllegalMoveError", py.get_type::<IllegalMoveError>())?;
    m.add("SearchStopped", py.get_type::<SearchStopped>())?;
    Ok(())
}
