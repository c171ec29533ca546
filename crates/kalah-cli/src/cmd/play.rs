//! `kalah play`: a game in the terminal, against the engine or another person.
//!
//! One command a line on stdin, so scripts can drive it. Players are known by the side they start
//! on (as in game records); under the pie rule a `swap` moves both players to the other row, and
//! the labels follow them.
//!
//! Ctrl-C never loses the game silently (see [`CtrlC`]): during a `hint` it stops the hint,
//! while the engine thinks it makes the engine play the rest of its turn now, and at the prompt
//! it says how to save; a second one there quits.

use std::io::{BufRead, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use kalah_core::{
    GameRecord, Move, MoveError, Outcome, Position, RecordError, Rules, Side, Turn, TurnEnd,
    TurnError,
};
use kalah_egdb::Egdb;
use kalah_engine::{Engine, Level, Limits};
use kalah_solver::{SearchLimits, Solver};

use crate::board::{self, BoardLabels, ColorChoice, Paint};
use crate::game_args::{parse_seed, RuleArgs};
use crate::input::WideText;
use crate::output::{print, printable};

/// Which side a player takes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideArg {
    /// South: moves first (`s` too, the letter positions use).
    #[value(alias = "s")]
    South,
    /// North: moves second (`n` too).
    #[value(alias = "n")]
    North,
}

impl From<SideArg> for Side {
    fn from(s: SideArg) -> Side {
        match s {
            SideArg::South => Side::South,
            SideArg::North => Side::North,
        }
    }
}

/// Who plays the other side.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opponent {
    /// The engine at --level.
    Engine,
    /// Another person at the same terminal (both sides type their moves).
    Human,
}

/// Arguments of `kalah play`.
#[derive(clap::Args, Debug)]
// `play` takes no position (tester 37: its help offered one): as `match`.
#[command(mut_arg("houses", |a| a.help("Houses a side, 1 to 12 [default: 6, or the count of --layout]")))]
pub struct Args {
    #[command(flatten)]
    pub rules: RuleArgs,
    /// The side you start on. Under the pie rule a swap moves you to the other row [default:
    /// south; with --load, the record's, see --load].
    #[arg(long, value_enum, ignore_case = true)]
    pub side: Option<SideArg>,
    /// Who plays the other side [default: engine; with --load, the record's, see --load].
    #[arg(long, value_enum, ignore_case = true)]
    pub opponent: Option<Opponent>,
    /// Engine level: beginner, easy, medium, hard, expert or perfect [default: medium; with
    /// --load, the record's, see --load].
    #[arg(long, value_name = "LEVEL")]
    pub level: Option<Level>,
    /// Fix the engine's random choices, for reproducible games.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_seed)]
    pub seed: Option<u64>,
    /// Continue a saved game (a text game record, or its JSON form); the rules and the start
    /// position come from the file. So do the players, when its South and North tags are as
    /// `save` writes them ("human", "kalah engine LEVEL"): two people, or the engine at its
    /// level on its side and you on the other. --opponent, --side and --level, when given, win
    /// over the record.
    #[arg(long, value_name = "FILE", conflicts_with_all = [
        "houses", "seeds", "layout", "mirrored", "capture", "end", "leftovers",
        "majority_end", "pie", "no_first_move_extra_turn",
    ])]
    pub load: Option<PathBuf>,
    /// Keep the game in FILE, written after every action and undo.
    ///
    /// The record is written at the start and after every action and every undo (a temporary
    /// file, then a rename), so FILE holds the game as it stands however the session ends
    /// (game over, quit, the end of input, Ctrl-C, a closed output): a script that pipes its
    /// moves in gets the finished game. An existing file is refused, not replaced, unless it is
    /// the --load file: `--load game.txt --save game.txt` goes on with a game and keeps it
    /// there (untouched until the game changes, then in the form it was read in, text or
    /// JSON). A session that ends while FILE holds an earlier state (a write failed) exits
    /// with code 1.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Thinking time of the engine per action, in milliseconds [default: the level's]. Also the
    /// time `hint` may take.
    #[arg(
        long,
        value_name = "MS",
        allow_negative_numbers = true,
        value_parser = crate::cmd::serve::parse_ms
    )]
    pub move_time_ms: Option<u64>,
    /// Nodes the engine may search per action. Without --move-time-ms there is then no time
    /// limit, so the engine's choices no longer depend on the machine's speed or load: with
    /// --seed (one thread) the game repeats exactly.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_move_nodes)]
    pub move_nodes: Option<u64>,
    /// After each of the engine's actions, a line with what its search found: the value for
    /// its side (proven, or an estimate and the depth), the line it expects, nodes and time.
    #[arg(long)]
    pub engine_info: bool,
    /// Threads of the engine's exact search and of `hint` [default: every core, or 1 with
    /// --seed: with several threads the engine's choice among equally good moves can differ
    /// from run to run].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::cmd::egdb::parse_threads)]
    pub threads: Option<usize>,
    /// Colour: auto (on a terminal, unless NO_COLOR is set), always or never.
    #[arg(long, value_name = "WHEN", default_value = "auto", ignore_case = true)]
    pub color: ColorChoice,
    /// Directory of the endgame databases that the engine and `hint` use [default: the
    /// per-user database root, ~/.local/share/kalah/egdb on Linux, if it exists].
    #[arg(long, value_name = "DIR")]
    pub egdb_dir: Option<PathBuf>,
    /// Do not use endgame databases even if present.
    #[arg(long, conflicts_with = "egdb_dir")]
    pub no_egdb: bool,
}

/// Names the players of a session (`human`: South's and North's; `level`: the engine's) in
/// `record`'s South and North tags, as `save` writes them: an empty tag, or one as `save`
/// writes it (a loaded game, perhaps played on with other --opponent/--side/--level), names
/// this session's player; a hand-written name is kept.
fn name_players_in(record: &mut GameRecord, human: [bool; 2], level: Level) {
    for (k, tag) in [&mut record.south, &mut record.north]
        .into_iter()
        .enumerate()
    {
        if tag.is_empty() || RecordedPlayer::parse(tag).is_some() {
            *tag = if human[k] {
                RecordedPlayer::Human
            } else {
                RecordedPlayer::Engine(level)
            }
            .name();
        }
    }
}

/// Time `review` takes at most, in all.
const REVIEW_TIME: Duration = Duration::from_secs(10);

/// Time `hint` takes when --move-time-ms is not given.
const DEFAULT_HINT_TIME: Duration = Duration::from_secs(2);

const HELP: &str = "\
Commands:
  1..m        sow that house of the side to move (1: farthest from its store)
  3-6         a whole turn: house 3, then house 6 on the extra turn it earns
              (or 3,6); a trailing - (3-) says the turn goes on: its last
              action must earn an extra turn
  swap        under the pie rule, as North's first action: take South's side
  undo, u     take back your last turn (and the engine's reply to it)
  hint, h     the value of every legal action (the final store difference
              for the side to move)
  review      every turn so far against the best one: mistakes, seeds lost
              (up to 10 s; Ctrl-C stops it)
  save FILE   save the game as a game record, the JSON form if FILE ends in
              .json (continue it with --load FILE)
  board, b    draw the board again
  help, ?     this list
  quit, q     leave the game (exit too)
";

/// Signals closer together than this are one Ctrl-C: `timeout -s INT` signals the command and
/// then its whole process group, so one interrupt can arrive twice within microseconds (see
/// `CTRL_C_REPEAT` in `solve`). A person pressing Ctrl-C twice is far slower.
const CTRL_C_SAME: Duration = Duration::from_millis(100);

/// How long the end of input of an unfinished game waits for a signal's handler to end the
/// game instead: a signal to the whole process group stops the writer of a pipe and this
/// program together (see [`crate::signals::claim_end`]).
const END_OF_INPUT_GRACE: Duration = Duration::from_millis(100);

/// `EIO`, what a read of a closed terminal fails with (5 on Linux and the BSDs).
const EIO: i32 = 5;

/// A second Ctrl-C at the prompt within this time of the first quits without saving.
const CTRL_C_AGAIN: Duration = Duration::from_secs(5);

/// On a terminal, Ctrl-Cs at the prompt within this time of one that stopped a search are
/// ignored: someone pressing Ctrl-C again and again to hurry the engine must not quit the game
/// once it has moved (eighth session's tester).
const CTRL_C_AFTER_STOP: Duration = Duration::from_secs(1);

/// The line a first Ctrl-C at the prompt prints.
const CTRL_C_WARNING: &str = "Ctrl-C: type 'save FILE' to keep the game, 'quit' to leave, or \
                              press Ctrl-C again within 5 s to quit without saving.";

/// What a Ctrl-C does, by where `kalah play` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OnCtrlC {
    /// A search runs (a hint, or the engine thinking): set the engines' stop flag. The hint
    /// prints what it found; the engine plays the best action found so far.
    Stop,
    /// At the prompt on a terminal, first time: say how to keep the game.
    Warn,
    /// Quit without saving, exit code 130: a second Ctrl-C at the prompt within
    /// [`CTRL_C_AGAIN`], or the first one when stdin is not a terminal (a script: nobody is
    /// there to read a warning, and `timeout -s INT` must end the command).
    Exit,
    /// The same interrupt again (within [`CTRL_C_SAME`]): nothing more to do.
    Same,
}

/// When the Ctrl-Cs came.
#[derive(Debug, Default)]
struct CtrlCTimes {
    /// The latest SIGINT that counted (not [`OnCtrlC::Same`]).
    last: Option<Instant>,
    /// The first Ctrl-C at the prompt not yet followed by a search or a command.
    warned: Option<Instant>,
    /// The latest Ctrl-C that stopped a search.
    stopped: Option<Instant>,
}

impl CtrlCTimes {
    /// What a SIGINT at `now` does, while a search runs (`searching`) or not, with stdin a
    /// terminal (`interactive`) or not.
    fn on_signal(&mut self, now: Instant, searching: bool, interactive: bool) -> OnCtrlC {
        // Measured from the first signal of a burst, so that a held-down Ctrl-C (the
        // terminal's key repeat) still counts as several.
        if self
            .last
            .is_some_and(|t| now.saturating_duration_since(t) < CTRL_C_SAME)
        {
            return OnCtrlC::Same;
        }
        if searching {
            self.last = Some(now);
            self.warned = None;
            self.stopped = Some(now);
            return OnCtrlC::Stop;
        }
        if !interactive {
            self.last = Some(now);
            return OnCtrlC::Exit;
        }
        if self
            .stopped
            .is_some_and(|t| now.saturating_duration_since(t) < CTRL_C_AFTER_STOP)
        {
            return OnCtrlC::Same;
        }
        self.last = Some(now);
        match self.warned {
            Some(t) if now.saturating_duration_since(t) < CTRL_C_AGAIN => OnCtrlC::Exit,
            _ => {
                self.warned = Some(now);
                OnCtrlC::Warn
            }
        }
    }
}

/// The Ctrl-C handling of `kalah play`, shared with the handler thread of the `ctrlc` crate
/// (the signal only wakes that thread; the game's thread may be waiting for input).
struct CtrlC {
    /// The stop flag of both engines (the opponent and the hint's).
    stop: Arc<AtomicBool>,
    /// Whether a search runs.
    searching: AtomicBool,
    /// Whether a typed line is being handled (from its reading to the next prompt): a Ctrl-C
    /// then is neither at the prompt nor in a search (tester 35: its warning came between the
    /// two halves of a turn, with the prompt before the move).
    busy: AtomicBool,
    /// A Ctrl-C came while `busy`, not yet acted on: the next search stops at once (the engine
    /// moves now), or, if the prompt comes first, it warns there.
    early: AtomicBool,
    /// stdin is a terminal.
    interactive: bool,
    times: Mutex<CtrlCTimes>,
    /// The prompt shown (printed again after the warning).
    prompt: Mutex<String>,
    /// The file that holds the game as it stands (just saved, or loaded with nothing played
    /// since), if any: then quitting loses nothing, and the messages say so.
    kept: Mutex<Option<String>>,
    /// Held by the game's thread from a change of the record until `--save`'s file holds it,
    /// so that a Ctrl-C that quits waits for the file to be written (no temporary file left
    /// behind, and the message says where the game is).
    saving: Mutex<()>,
    /// `--save`'s file, the record text it should hold and what this session last found or
    /// wrote in it ([`replace_kept`]), when the latest write failed: a Ctrl-C that quits tries
    /// once more.
    pending: Mutex<Option<(PathBuf, String, Vec<u8>)>>,
}

impl CtrlC {
    fn new(interactive: bool) -> CtrlC {
        CtrlC {
            stop: Arc::new(AtomicBool::new(false)),
            searching: AtomicBool::new(false),
            busy: AtomicBool::new(false),
            early: AtomicBool::new(false),
            interactive,
            times: Mutex::new(CtrlCTimes::default()),
            prompt: Mutex::new(String::new()),
            kept: Mutex::new(None),
            saving: Mutex::new(()),
            pending: Mutex::new(None),
        }
    }

    /// The game as it stands is in `file` (`None`: it changed since it was last saved or
    /// loaded).
    fn kept_in(&self, file: Option<&str>) {
        if let Ok(mut k) = self.kept.lock() {
            *k = file.map(str::to_string);
        }
    }

    fn kept(&self) -> Option<String> {
        self.kept.lock().ok().and_then(|k| k.clone())
    }

    /// What becomes of the game if the program ends now, for the last line it prints: `the game
    /// as it stands is in 'FILE'`, or `the game was not saved`.
    fn fate(&self) -> String {
        match self.kept() {
            Some(file) => format!("the game as it stands is in '{file}'"),
            None => match &*self.pending.lock().unwrap_or_else(|e| e.into_inner()) {
                Some((path, _, last)) => format!(
                    "'{}' {} (the last write failed)",
                    path.display(),
                    left_in(path, last)
                ),
                None => "the game was not saved".to_string(),
            },
        }
    }

    /// A write of `--save`'s file that failed, tried once more (the caller holds `saving`).
    fn retry_pending(&self) {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((path, text, last)) = &*pending {
            if replace_kept(path, text, last).is_ok() {
                self.kept_in(Some(&path.display().to_string()));
                *pending = None;
            }
        }
    }

    /// Handles one SIGINT (on the handler thread).
    fn on_signal(&self) {
        let busy = self.interactive && self.busy.load(Ordering::SeqCst);
        let searching = self.searching.load(Ordering::SeqCst) || busy;
        let action = match self.times.lock() {
            Ok(mut t) => t.on_signal(Instant::now(), searching, self.interactive),
            // A poisoned lock (not expected): the safe choice.
            Err(_) if searching => OnCtrlC::Stop,
            Err(_) => OnCtrlC::Exit,
        };
        match action {
            OnCtrlC::Same => {}
            OnCtrlC::Stop => {
                if !self.searching.load(Ordering::SeqCst) {
                    self.early.store(true, Ordering::SeqCst);
                }
                self.stop.store(true, Ordering::SeqCst)
            }
            OnCtrlC::Warn => {
                let prompt = self.prompt.lock().map(|p| p.clone()).unwrap_or_default();
                let _ = print(&format!("\n{}\n{prompt}", self.warning()));
            }
            OnCtrlC::Exit => self.exit(),
        }
    }

    /// Ends the program for a signal (a second Ctrl-C, SIGTERM, SIGHUP): a change of the
    /// record being written to `--save`'s file is finished first, and a write that failed is
    /// tried once more; the last line says what became of the game.
    fn exit(&self) -> ! {
        // The game ended normally first: that end stands (its exit code and last line).
        if !crate::signals::claim_end() {
            crate::signals::wait_for_end();
        }
        let _saving = self.saving.lock();
        self.retry_pending();
        // Off the prompt's line, wherever stdout goes.
        let _ = print("\n");
        stderr_line!("kalah: {}: {}", crate::signals::stopped_by(), self.fate());
        std::process::exit(crate::signals::exit_code());
    }

    /// The warning of a first Ctrl-C at the prompt.
    fn warning(&self) -> String {
        match self.kept() {
            Some(file) => format!(
                "Ctrl-C: the game as it stands is in '{file}'; press Ctrl-C again within 5 s to \
                 quit, or go on playing."
            ),
            None => CTRL_C_WARNING.to_string(),
        }
    }

    /// Marks a search as running until the guard is dropped, with the stop flag cleared (the
    /// engine never clears it: see `Engine::set_stop_flag`), unless a Ctrl-C came just before
    /// it, while a typed line was handled: then it stops at once.
    fn search(&self) -> SearchGuard<'_> {
        self.search_hurried(false)
    }

    /// [`Self::search`], stopped at once if `hurry` (the rest of a turn a Ctrl-C hurried).
    fn search_hurried(&self, hurry: bool) -> SearchGuard<'_> {
        let early = self.early.swap(false, Ordering::SeqCst);
        self.stop.store(early || hurry, Ordering::SeqCst);
        self.searching.store(true, Ordering::SeqCst);
        SearchGuard(self)
    }

    /// A typed line is read: until the next prompt, a Ctrl-C waits (see `busy`).
    fn line_read(&self) {
        self.busy.store(true, Ordering::SeqCst);
    }

    /// Whether a Ctrl-C stopped the latest search.
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// The prompt is being shown (again): a Ctrl-C now warns afresh. A Ctrl-C that came while
    /// the last line was handled, and that no search took, warns now (before the prompt, which
    /// the caller prints next), as it would have at the prompt.
    fn at_prompt(&self, prompt: &str) {
        if let Ok(mut p) = self.prompt.lock() {
            p.clear();
            p.push_str(prompt);
        }
        self.busy.store(false, Ordering::SeqCst);
        if self.early.swap(false, Ordering::SeqCst) {
            if let Ok(mut t) = self.times.lock() {
                t.warned = t.last;
            }
            let _ = print(&format!("{}\n", self.warning()));
        }
    }

    /// A command was typed: a later Ctrl-C at the prompt warns again before it quits.
    fn command_typed(&self) {
        if let Ok(mut t) = self.times.lock() {
            t.warned = None;
        }
    }
}

/// A search in progress for [`CtrlC`]; dropping it ends the search.
struct SearchGuard<'a>(&'a CtrlC);

impl Drop for SearchGuard<'_> {
    fn drop(&mut self) {
        self.0.searching.store(false, Ordering::SeqCst);
    }
}

/// Longest input line kept, in bytes; longer lines are refused (a command is a few characters).
const MAX_LINE: usize = 1000;

/// One line of input.
enum Line {
    /// The line, trimmed, as typed (echo and messages show it through [`printable`]).
    Text(String),
    /// A line longer than [`MAX_LINE`] bytes (its text is not kept).
    TooLong,
    /// A line that is not UTF-8 text: what it holds, through [`printable`], with each byte
    /// that is not part of a character written `\xff`.
    NotUtf8(String),
}

/// `bytes` as text for a message: the UTF-8 characters through [`printable`], each byte that is
/// not part of one as `\xNN` (`a\xffb`).
fn show_bytes(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        out += &printable(chunk.valid());
        for b in chunk.invalid() {
            out += &format!("\\x{b:02x}");
        }
    }
    out
}

/// A command typed by a player.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    Action(Move),
    /// Several actions of one turn typed at once, `3-6` (house 3, then house 6 on the extra
    /// turn), as `kalah show --moves`, game records and the API write a turn: the actions, and
    /// [`TurnEnd::Open`] when it ends in `-` (`3-`, `3-6-`: the turn goes on, so the last action
    /// must earn an extra turn, as the web API reads it), else [`TurnEnd::Prefix`] (it may stop
    /// anywhere within the turn).
    Turn(Turn, TurnEnd),
    /// A number too large to be a house (it does not fit a `u8`): the number, and the turn it
    /// is part of, if typed in one (`3-999`).
    NoHouse(String, Option<String>),
    Undo,
    Hint,
    Review,
    Save(String),
    Board,
    Help,
    Quit,
    Empty,
}

fn parse_command(line: &str) -> Result<Command, String> {
    let typed = line;
    let line = line.trim();
    if line.is_empty() {
        return Ok(Command::Empty);
    }
    // `3 - 6`, `3- 6`, `3, 6`: one turn with spaces beside its dashes or commas (testers 68
    // and 69: such lines got "one action a line" or "not a command").
    if let Some(turn) = spaced_turn(line) {
        return Err(format!(
            "write a turn without spaces: '{turn}', not '{line}'"
        ));
    }
    let (word, rest) = match line.split_once(char::is_whitespace) {
        Some((w, r)) => (w, r.trim()),
        None => (line, ""),
    };
    let word_lc = word.to_ascii_lowercase();
    let no_arg = |c: Command| -> Result<Command, String> {
        if rest.is_empty() {
            Ok(c)
        } else {
            Err(format!("'{word}' takes no argument (got '{rest}')"))
        }
    };
    match word_lc.as_str() {
        "undo" | "u" => no_arg(Command::Undo),
        "hint" | "h" => no_arg(Command::Hint),
        "review" => no_arg(Command::Review),
        "board" | "b" => no_arg(Command::Board),
        "help" | "?" => no_arg(Command::Help),
        "quit" | "q" | "exit" => no_arg(Command::Quit),
        "swap" => no_arg(Command::Action(Move::Swap)),
        "save" => {
            // The name as typed, without the spaces around it only: a tab or an escape before
            // or after it is refused as one inside it is (tester 62: `save <TAB>x` saved `x`).
            let name = typed
                .trim_start()
                .split_once(char::is_whitespace)
                .map_or("", |(_, r)| r.trim_matches(' '));
            // One pair of quotes around the whole name is taken off, as a shell would
            // (tester 77: `save "my game.txt"` made a file named with the quotes).
            let name = ['"', '\'']
                .iter()
                .find_map(|&q| name.strip_prefix(q)?.strip_suffix(q))
                .unwrap_or(name);
            // (Spaces alone in quotes are no name either: tester 79's `save " "`.)
            if name.trim_matches(' ').is_empty() {
                Err("save needs a file name: save FILE".to_string())
            } else if name.chars().any(char::is_control) {
                // Refused rather than saved under a name that cannot be typed back.
                Err(format!(
                    "a file name with control characters is refused: '{}'",
                    printable(name)
                ))
            } else {
                Ok(Command::Save(name.to_string()))
            }
        }
        _ if word.bytes().all(|b| b.is_ascii_digit()) => {
            if rest.starts_with('#') {
                return Err(comment_typed(word));
            }
            if !rest.is_empty() {
                return Err(format!(
                    "one action a line, please: '{line}' (type a house number, or a whole turn joined by dashes or commas, e.g. 3-6)"
                ));
            }
            // kalah-core reads a move as every front end does: plain digits, no leading zero.
            match word.parse::<Move>() {
                Ok(mv) => Ok(Command::Action(mv)),
                // Told with the board's own count of houses when it comes up.
                Err(MoveError::HouseTooLarge(_)) => Ok(Command::NoHouse(word.to_string(), None)),
                Err(e) => Err(e.to_string()),
            }
        }
        // A signed number is read as a move, and refused as `03` is (tester 64: '+1' was "not a
        // command").
        _ if rest.is_empty()
            && word
                .strip_prefix('+')
                .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())) =>
        {
            word.parse::<Move>()
                .map(Command::Action)
                .map_err(|e| e.to_string())
        }
        // A negative number is no house, told as a number too large is (tester 41: '-1' was
        // "not a command", where the web API says houses are numbered 1 to m).
        _ if rest.is_empty()
            && word
                .strip_prefix('-')
                .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())) =>
        {
            Ok(Command::NoHouse(word.to_string(), None))
        }
        // A turn of house numbers with an empty action (`3--6`, `3,,6`, `,3`): said as `show
        // --moves` and records say it (tester 77: "not a command").
        _ if rest.is_empty() && has_empty_action(word) => {
            Err(format!("'{word}': {}", MoveError::EmptyAction))
        }
        _ if word.contains(['-', ','])
            && turn_body(word).split(['-', ',']).all(|h| !h.is_empty()) =>
        {
            if rest.starts_with('#') {
                return Err(comment_typed(word));
            }
            if !rest.is_empty() {
                return Err(format!(
                    "one turn a line, please: '{line}' (type the turn alone, e.g. 3-6)"
                ));
            }
            let body = turn_body(word);
            let end = if body.len() < word.len() {
                TurnEnd::Open
            } else {
                TurnEnd::Prefix
            };
            let mut moves = Vec::new();
            for h in body.split(['-', ',']) {
                match h.parse::<Move>() {
                    Ok(mv) => moves.push(mv),
                    // Told with the board's own count of houses, as `999` alone.
                    Err(MoveError::HouseTooLarge(_)) => {
                        return Ok(Command::NoHouse(h.to_string(), Some(word.to_string())))
                    }
                    Err(_) => {
                        return Err(format!(
                            "'{h}' in '{word}' is not a house number (digits, no leading zero)"
                        ))
                    }
                }
            }
            Ok(Command::Turn(Turn(moves), end))
        }
        _ => Err(format!(
            "'{}' is not a command: type a house number (or a whole turn, e.g. 3-6), or help",
            kalah_core::error::clipped(line)
        )),
    }
}

/// `line` without its spaces, if they stand beside a dash or comma and it then reads as a turn
/// (`3 -6` is `3-6`); `None` otherwise (`3-6 1`, `3 ,`).
fn spaced_turn(line: &str) -> Option<String> {
    let chars: Vec<char> = line.chars().collect();
    let beside_joint = chars.windows(2).any(|w| {
        (w[0].is_whitespace() && matches!(w[1], '-' | ','))
            || (matches!(w[0], '-' | ',') && w[1].is_whitespace())
    });
    let joined: String = line.split_whitespace().collect();
    (beside_joint && matches!(parse_command(&joined), Ok(Command::Turn(..)))).then_some(joined)
}

/// The message for a `#` comment typed after the action or turn `word` (tester 68: "one
/// action a line").
fn comment_typed(word: &str) -> String {
    format!("a '#' comment belongs in a game record file, not at the prompt: type '{word}' alone")
}

/// `e` quoting the turn as the player typed it (`1,swap`), not as kalah-core writes it
/// (`1-swap`).
fn as_typed(mut e: TurnError, typed: &str) -> TurnError {
    match &mut e {
        TurnError::Move { turn, .. }
        | TurnError::Incomplete { turn, .. }
        | TurnError::TooLong { turn, .. }
        | TurnError::NoSuchLargeHouse { turn, .. } => *turn = typed.to_string(),
        // Its message writes the trailing '-' itself.
        TurnError::OpenNoExtraTurn { turn, .. } => *turn = turn_body(typed).to_string(),
        _ => {}
    }
    e
}

/// An illegal action of a typed turn, with the legal actions where it was to be played,
/// `there`: after the turn's actions before it, `done` (`3-6`; empty for the first action).
fn with_legal(e: &TurnError, done: &str, there: &Position, rules: &Rules) -> String {
    let legal = board::legal_list(there, rules);
    if done.is_empty() {
        format!("{e} (legal: {legal})")
    } else {
        format!("{e} (legal after '{done}': {legal})")
    }
}

/// Whether `word` is a typed turn with an empty action (`3--6`, `3,,6`, `,3`, `-`, `3--x`),
/// as opposed to a word that is no turn at all (`--help`): every action empty, or one of them
/// a house number or `swap`. A trailing `-` (`3-`, the turn goes on) is no empty action.
fn has_empty_action(word: &str) -> bool {
    let actions = || word.split(['-', ',']);
    let looks_like_a_turn = actions().all(str::is_empty)
        || actions().any(|h| {
            !h.is_empty()
                && (h.bytes().all(|b| b.is_ascii_digit()) || h.eq_ignore_ascii_case("swap"))
        });
    word.contains(['-', ','])
        && looks_like_a_turn
        && turn_body(word).split(['-', ',']).any(str::is_empty)
}

/// A typed turn without the one trailing `-` of an unfinished turn (`3-6-` is `3-6`).
fn turn_body(word: &str) -> &str {
    word.strip_suffix('-').unwrap_or(word)
}

/// Most turns of the engine's expected line that `--engine-info` shows.
const INFO_TURNS: usize = 8;

/// On a terminal (stdout, not dumb), shows `text` as a line that [`erase_thinking_line`]
/// erases once the search is over (a dumb terminal cannot erase it). The text is cut to one row:
/// a wrapped line would be erased only in its last row (tester 94: `South (engine, perfect) is
/// thi` stayed on a 30-column terminal). Returns whether the line is shown.
fn thinking_line(text: &str) -> Result<bool> {
    if !std::io::stdout().is_terminal() || crate::output::dumb_terminal() {
        return Ok(false);
    }
    let text = match console::Term::stdout().size_checked() {
        Some((_, cols)) => {
            console::truncate_str(text, usize::from(cols).saturating_sub(1), "").into_owned()
        }
        None => text.to_string(),
    };
    // The cursor stays after the text: what the terminal echoes meanwhile (a Ctrl-C's `^C`,
    // type-ahead) follows it rather than overwriting it (tester 97: `3orking out the hint`).
    print(text.as_str())?;
    Ok(true)
}

/// Erases the line [`thinking_line`] showed (`shown`), with whatever was echoed on it.
fn erase_thinking_line(shown: bool) -> Result<()> {
    if shown {
        print("\r\x1b[2K")?;
    }
    Ok(())
}

/// The `--engine-info` line of the engine's `choice` in `pos` (before the action), found in
/// `seconds`: `engine: +6 for North, proven; expects 2 5-1 3 (12345 nodes, 0.12 s)`, or `about
/// +4 ... at depth 14` for an estimate, or `no search` for an action chosen without one (the only
/// legal action, a lower level's random pick) that does not end the game. The value is the
/// final store difference of the side to move in `pos` (of the other side, whose row the engine
/// takes, after a `swap`); the line is in whole turns, from `pos`, cut after [`INFO_TURNS`].
fn engine_info(
    pos: &Position,
    rules: &Rules,
    choice: &kalah_engine::Choice,
    seconds: f64,
) -> String {
    // After a swap the engine holds the other row (the pie rule): its value is for that side.
    let side = if choice.mv == Move::Swap {
        pos.side().opposite()
    } else {
        pos.side()
    };
    let Some(value) = choice.value else {
        let why = if pos.legal_moves(rules).len() == 1 {
            "the only legal action"
        } else {
            "a random action, as the lower levels play now and then"
        };
        return format!("engine: no search: {why}");
    };
    let what = if choice.exact {
        format!("{value:+} for {side}, proven")
    } else {
        format!("about {value:+} for {side} (depth {})", choice.depth)
    };
    let line = super::solve::turns_text(pos, rules, &choice.pv);
    let mut turns: Vec<&str> = line.split(' ').filter(|t| !t.is_empty()).collect();
    let more = turns.len() > INFO_TURNS;
    turns.truncate(INFO_TURNS);
    let expects = if turns.is_empty() {
        String::new()
    } else {
        format!(
            "; expects {}{}",
            turns.join(" "),
            if more { " ..." } else { "" }
        )
    };
    format!(
        "engine: {what}{expects} ({} nodes, {seconds:.2} s)",
        choice.nodes
    )
}

/// The engine's limits per action from `--move-time-ms` and `--move-nodes`: a node limit alone
/// means no time limit (a time too long to be an instant, see `SearchLimits::new`); neither
/// means the level's own time.
pub(crate) fn engine_limits(time_ms: Option<u64>, nodes: Option<u64>) -> Limits {
    let time = match (time_ms, nodes) {
        (Some(ms), _) => Some(Duration::from_millis(ms)),
        (None, Some(_)) => Some(Duration::MAX),
        (None, None) => None,
    };
    Limits { time, nodes }
}

/// Parses `--move-nodes`: a whole number of nodes from 1 to 2^64 - 1.
pub(crate) fn parse_move_nodes(s: &str) -> Result<u64, String> {
    crate::game_args::whole_number(s, 1, u64::MAX, "nodes")
}

/// A player as `save` names him in a record's South or North tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RecordedPlayer {
    /// A person: `human`.
    Human,
    /// The engine at a level: `kalah engine medium`.
    Engine(Level),
}

impl RecordedPlayer {
    /// The tag text `save` writes.
    fn name(self) -> String {
        match self {
            RecordedPlayer::Human => "human".to_string(),
            RecordedPlayer::Engine(level) => format!("kalah engine {level}"),
        }
    }

    /// The player a tag names, if the tag is as `save` writes it, spaces around and between its
    /// words and the case of its letters aside (`Human`, `kalah engine Easy`: `--level` takes any case too),
    /// as the web page reads it; anything else, a hand-written name or an empty tag, is
    /// `None`.
    fn parse(tag: &str) -> Option<RecordedPlayer> {
        // Words apart by any white space (tester 83: `kalah engine  hard`, two spaces, was
        // refused and then told that 'hard' is no level).
        let tag = tag.split_whitespace().collect::<Vec<_>>().join(" ");
        std::iter::once(RecordedPlayer::Human)
            .chain(Level::ALL.into_iter().map(RecordedPlayer::Engine))
            .find(|p| p.name().eq_ignore_ascii_case(&tag))
    }
}

/// The level word of a player tag `kalah engine WORD` (any case) whose WORD is no level.
fn unknown_level(tag: &str) -> Option<String> {
    // Words apart by any white space, as `RecordedPlayer::parse` reads them (tester 84).
    let words: Vec<&str> = tag.split_whitespace().collect();
    match words[..] {
        [kalah, engine, ref level @ ..]
            if kalah.eq_ignore_ascii_case("kalah")
                && engine.eq_ignore_ascii_case("engine")
                && !level.is_empty() =>
        {
            RecordedPlayer::parse(tag)
                .is_none()
                .then(|| crate::output::printable(&level.join(" ")))
        }
        _ => None,
    }
}

/// Who plays: from the command line, else from a loaded record's players, else the defaults.
#[derive(Debug, PartialEq, Eq)]
struct Players {
    opponent: Opponent,
    /// The side the user starts on (against the engine).
    side: Side,
    /// The engine's level.
    level: Level,
    /// Lines for the start of the game: flags that have no effect between two people; with
    /// `--load`, what was taken from the record, and the defaults used because it could not
    /// tell.
    notes: Vec<String>,
}

/// A record's player tag for a message: control characters escaped, at most 40 characters.
fn quoted_tag(tag: &str) -> String {
    let mut t: String = printable(tag).chars().take(41).collect();
    if t.chars().count() > 40 {
        t = t.chars().take(39).collect::<String>() + "…";
    }
    format!("\"{t}\"")
}

/// The players of the game: each of `opponent`, `side` and `level` given on the command line
/// wins; those not given come from `record` (a loaded game) when its South and North tags are
/// a pair `save` writes (two people, or a person and the engine); else the defaults (the engine
/// at `medium`, you South). `--side` or `--level` alone asks for the engine. `engine_flags`:
/// the other flags given that only the engine uses (`--seed`, `--move-nodes`, `--engine-info`:
/// they mean nothing between two people either).
fn players(
    opponent: Option<Opponent>,
    side: Option<SideArg>,
    level: Option<Level>,
    engine_flags: &[&'static str],
    record: Option<&GameRecord>,
) -> Players {
    use RecordedPlayer::{Engine as E, Human as H};
    let tags = record.map(|r| {
        (
            r,
            RecordedPlayer::parse(&r.south),
            RecordedPlayer::parse(&r.north),
        )
    });
    // From the record: two people (None), or you on this side against the engine at this level.
    let recorded: Option<Option<(Side, Level)>> = match tags {
        Some((_, Some(H), Some(H))) => Some(None),
        Some((_, Some(H), Some(E(l)))) => Some(Some((Side::South, l))),
        Some((_, Some(E(l)), Some(H))) => Some(Some((Side::North, l))),
        _ => None,
    };
    // The settings taken from the record, and the defaults used, as flags.
    let mut taken: Vec<String> = Vec::new();
    let mut defaults: Vec<&str> = Vec::new();
    let opponent = match (opponent, recorded) {
        (Some(o), _) => o,
        // --side and --level only mean something against the engine.
        _ if side.is_some() || level.is_some() => Opponent::Engine,
        (None, Some(None)) => {
            taken.push("--opponent human".into());
            Opponent::Human
        }
        (None, Some(Some(_))) => {
            taken.push("--opponent engine".into());
            Opponent::Engine
        }
        (None, None) => {
            defaults.push("--opponent engine");
            Opponent::Engine
        }
    };
    let engine_side = recorded.flatten();
    let vs_engine = opponent == Opponent::Engine;
    // --side, --level and the engine's own flags given for a game between two people: said,
    // not silently dropped.
    let mut unused: Vec<&str> = Vec::new();
    if !vs_engine {
        unused.extend(side.is_some().then_some("--side"));
        unused.extend(level.is_some().then_some("--level"));
        unused.extend(engine_flags);
    }
    let side = match (side, engine_side) {
        (Some(s), _) => Side::from(s),
        (None, Some((s, _))) => {
            if vs_engine {
                taken.push(format!("--side {}", s.to_string().to_lowercase()));
            }
            s
        }
        (None, None) => {
            if vs_engine {
                defaults.push("--side south");
            }
            Side::South
        }
    };
    let level = match (level, engine_side) {
        (Some(l), _) => l,
        (None, Some((_, l))) => {
            if vs_engine {
                taken.push(format!("--level {l}"));
            }
            l
        }
        (None, None) => {
            if vs_engine {
                defaults.push("--level medium");
            }
            Level::Medium
        }
    };
    let mut notes = Vec::new();
    if !unused.is_empty() {
        notes.push(format!(
            "Two people play (--opponent human), so {} {} no effect.",
            match unused.split_last() {
                Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
                _ => unused.join(""),
            },
            if unused.len() == 1 { "has" } else { "have" }
        ));
    }
    if let Some((r, south, north)) = tags {
        // A player without a name (no tag, or an empty one) is said so (tester 110: `North ""`,
        // as if a tag were written).
        let player = |side: &str, tag: &str| {
            if tag.trim().is_empty() {
                format!("{side} unnamed")
            } else {
                format!("{side} {}", quoted_tag(tag))
            }
        };
        let both = format!(
            "{}, {}",
            player("South", &r.south),
            player("North", &r.north)
        );
        if !taken.is_empty() {
            notes.push(format!(
                "Players from the record ({both}): {}.",
                taken.join(" ")
            ));
        }
        if !defaults.is_empty() {
            let why = match (south, north) {
                (Some(H), Some(H)) => format!("The record's players are two people ({both})"),
                _ if r.south.is_empty() && r.north.is_empty() => {
                    "The record does not name its players".to_string()
                }
                _ => match [&r.south, &r.north]
                    .into_iter()
                    .find_map(|t| unknown_level(t))
                {
                    // (tester 82: "kalah engine grandmaster" got only the general message.)
                    Some(word) => format!(
                        "The record's players ({both}) name the engine at level '{word}', which \
                         is no level ({})",
                        Level::ALL.map(|l| l.to_string()).join(", ")
                    ),
                    None => format!(
                        "The record's players ({both}) are not a pair that 'save' writes \
                         (\"human\" against \"human\" or \"kalah engine LEVEL\")"
                    ),
                },
            };
            let the = if defaults.len() == 1 {
                "default is"
            } else {
                "defaults are"
            };
            notes.push(format!("{why}, so the {the} used: {}.", defaults.join(" ")));
        }
    }
    Players {
        opponent,
        side,
        level,
        notes,
    }
}

/// The largest game record `--load` reads (a whole game is a few KiB; `/dev/zero` is endless).
const MAX_RECORD_BYTES: u64 = 4 << 20;

/// Reads a text or JSON game record from `path`; `true` with it when it is in the JSON form
/// (see [`GameRecord::parse`]).
///
/// # Errors
/// When the file cannot be read, is not text, is empty, or is not a game record that replays.
pub fn load_record(path: &Path) -> Result<(GameRecord, bool)> {
    // A FIFO would block the read until a writer came, a device could be endless.
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        bail!(
            "'{}' is not a regular file (a pipe, a device or a socket); games are loaded from files",
            path.display()
        );
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_RECORD_BYTES + 1).read_to_end(&mut bytes))
        .with_context(|| format!("cannot read '{}'", path.display()))?;
    if bytes.len() as u64 > MAX_RECORD_BYTES {
        bail!(
            "'{}' is not a game record: it holds over {} MiB (a record of the longest game is a \
             few KiB)",
            path.display(),
            MAX_RECORD_BYTES >> 20
        );
    }
    // A UTF-16 file (as some Windows editors save) is named as such (tester 77: only "bad
    // byte at offset 0").
    let wide = WideText::detect(&bytes);
    if let Some(u) = wide.filter(|u| u.mark.is_some()) {
        bail!(
            "'{}' is not a game record kalah reads: it is {}, and records are UTF-8: convert it, \
             e.g. {}",
            path.display(),
            u.describe(),
            u.iconv()
        );
    }
    if let Some(at) = bytes.iter().position(|&b| b == 0) {
        let wide = wide.map_or(String::new(), |u| {
            format!(" ({}: convert it, e.g. {})", u.describe(), u.iconv())
        });
        bail!(
            "'{}' is not a game record: it holds a NUL byte (at offset {at}), which no text \
             does{wide}",
            path.display()
        );
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "'{}' is not a game record: it is not UTF-8 text (bad byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })?;
    let parsed = GameRecord::parse(&text);
    if let Err(RecordError::Empty) = parsed {
        bail!(
            "'{}' is not a game record: it is empty (a record holds its moves, after an \
             optional [Start \"...\"] tag; see 'save FILE' in kalah play)",
            path.display()
        );
    }
    let record = parsed
        .with_context(|| format!("'{}' is not a game record that replays", path.display()))?;
    // A start with a phase tag of the opening rules needs them, as a POSITION on the command
    // line does: otherwise `save` would write back a start that `kalah show` refuses.
    if let Some(problem) = record.start.phase_tag_problem(&record.rules) {
        bail!(
            "'{}' is not a game record that replays: the Start position's {problem}",
            path.display()
        );
    }
    Ok((record, GameRecord::is_json_form(&text)))
}

/// Whether the last component of `path`, as typed, is `.` or `..` (`f.txt/.`, `../..`).
pub(crate) fn ends_in_dot_dir(path: &Path) -> bool {
    let last = path
        .as_os_str()
        .as_encoded_bytes()
        .rsplit(|&b| b == b'/')
        .next();
    matches!(last, Some(b"." | b".."))
}

/// Where [`save_atomically`] writes `path`: the file the rename replaces (a symbolic link
/// followed) and the directory its temporary file goes in, as the messages name it (as typed,
/// unless a link led elsewhere).
///
/// # Errors
/// When `path` is a directory, a device, a pipe, a socket, a symbolic link that cannot be
/// followed, or a file the user may not write.
fn save_target(path: &Path) -> Result<(PathBuf, PathBuf)> {
    // Follow a symbolic link, so the link stays and its target gets the game.
    let (target, linked) = match std::fs::canonicalize(path) {
        Ok(p) if p.is_dir() => bail!("'{}' is a directory", path.display()),
        Ok(p) => {
            let linked = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
            (p, linked)
        }
        Err(_) if path.as_os_str().as_encoded_bytes().ends_with(b"/") => {
            // (tester 77: `save x.txt/` said only "Not a directory (os error 20)".)
            bail!(
                "'{}' ends in '/', which names a directory; games are saved to files (drop the \
                 '/')",
                path.display()
            )
        }
        Err(_) if ends_in_dot_dir(path) => {
            // (tester 79: `save f.txt/.` gave the system's "No such file or directory".)
            bail!(
                "'{}' ends in '.' or '..', which names a directory; games are saved to files",
                path.display()
            )
        }
        Err(e) => {
            // A link the system follows to something with no path: /dev/stdout to a pipe
            // ("pipe:[1234]") was said not to exist (tester 57).
            if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
                return Err(not_a_regular_file(path));
            }
            if let Ok(link) = std::fs::read_link(path) {
                if e.kind() == std::io::ErrorKind::NotFound {
                    // A chain of links: the one that leads nowhere is named (tester 59: the
                    // first link's target, which exists, was said not to).
                    let (through, end) = link_chain(path);
                    let via = if through.is_empty() {
                        String::new()
                    } else {
                        let names: Vec<String> = through
                            .iter()
                            .map(|p| format!("'{}'", p.display()))
                            .collect();
                        format!(" (through {})", names.join(", "))
                    };
                    bail!(
                        "'{}' is a symbolic link{via} to '{}', which does not exist",
                        path.display(),
                        end.display()
                    );
                }
                bail!(
                    "'{}' is a symbolic link to '{}', which cannot be followed: {e}",
                    path.display(),
                    link.display()
                );
            }
            (path.to_path_buf(), false)
        }
    };
    if let Ok(m) = std::fs::metadata(&target) {
        // The rename would replace a device, a pipe or a socket by a plain file (as root,
        // `save /dev/null` would have replaced /dev/null), and would ignore a file's own
        // write protection: only a regular file the user may write is replaced.
        if !m.is_file() {
            return Err(not_a_regular_file(path));
        }
        if let Some(what) = own_output(&m) {
            bail!(
                "'{}' is this session's own {what}; games are saved to files of their own",
                path.display()
            );
        }
        if let Err(e) = std::fs::OpenOptions::new().write(true).open(&target) {
            bail!("cannot write '{}': {e}", path.display());
        }
    }
    let shown = if linked { target.as_path() } else { path };
    let dir = match shown.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((target, dir))
}

/// What is said of `path` when it is not a regular file, which a save would replace.
fn not_a_regular_file(path: &Path) -> anyhow::Error {
    anyhow::anyhow!(
        "'{}' is not a regular file (a device, a pipe or a socket); games are saved to files",
        path.display()
    )
}

/// Whether the file of metadata `m` is this process's standard output or error (`kalah play
/// --save /dev/stdout > out.txt`: the transcript then changed the file between saves, which
/// was taken for another program's doing, tester 59): `output` or `error output`.
fn own_output(m: &std::fs::Metadata) -> Option<&'static str> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use std::os::unix::fs::MetadataExt;
        let same = |fd: std::os::fd::BorrowedFd<'_>| {
            fd.try_clone_to_owned()
                .map(std::fs::File::from)
                .and_then(|f| f.metadata())
                .is_ok_and(|o| o.dev() == m.dev() && o.ino() == m.ino())
        };
        if same(std::io::stdout().as_fd()) {
            return Some("output");
        }
        if same(std::io::stderr().as_fd()) {
            return Some("error output");
        }
    }
    #[cfg(not(unix))]
    let _ = m;
    None
}

/// A fresh temporary file next to `target` (in `dir`), created by the kernel with the user's
/// umask (as any new file).
///
/// # Errors
/// When the directory cannot take it (not writable, missing, full).
fn temp_beside(target: &Path, dir: &Path) -> Result<(PathBuf, std::fs::File)> {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().chars().take(40).collect::<String>())
        .unwrap_or_else(|| "game".to_string());
    let real_dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    for n in 0..100u32 {
        let candidate = real_dir.join(format!(".{name}.kalah-{}-{n}.tmp", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&candidate)
        {
            Ok(f) => return Ok((candidate, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            // A directory that is there but takes no new files (`/proc`) answers "No such
            // file or directory", which reads as if the directory were missing (tester 62).
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && real_dir.is_dir() => bail!(
                "cannot write in '{}': it takes no new files (a save writes a temporary file \
                 there first, then renames it over the file)",
                dir.display()
            ),
            Err(e) => bail!("cannot write in '{}': {e}", dir.display()),
        }
    }
    bail!(
        "cannot write in '{}': no free temporary name",
        dir.display()
    )
}

/// Checks that [`save_atomically`] could write `path` now, without changing it: the checks of
/// the target, and a temporary file made in its directory and removed.
///
/// # Errors
/// As [`save_atomically`], except a full disk.
pub fn check_replaceable(path: &Path) -> Result<()> {
    let (target, dir) = save_target(path)?;
    let (tmp, file) = temp_beside(&target, &dir)?;
    // The temporary file is the user's own: its owner is who this process writes as.
    let me = writer_uid(&file);
    drop(file);
    let _ = std::fs::remove_file(&tmp);
    match me.and_then(|me| sticky_refusal(path, &target, me)) {
        Some(why) => Err(anyhow::anyhow!(why)),
        None => Ok(()),
    }
}

/// Who this process writes files as: the owner of `file`, a temporary file it just made.
fn writer_uid(file: &std::fs::File) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    file.metadata().map(|m| m.uid()).ok()
}

/// Why the user `me` may not rename over `target` (`path` as the user gave it), if the reason is
/// a sticky directory: there (mode 1777, as /tmp) only a file's owner, the directory's owner or
/// root may (tester 25: the game started, then every write failed; tester 98: `save` gave only
/// the system's "Operation not permitted").
fn sticky_refusal(path: &Path, target: &Path, me: u32) -> Option<String> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let parent = target.parent().filter(|p| !p.as_os_str().is_empty());
    let t = std::fs::metadata(target).ok()?;
    let d = std::fs::metadata(parent.unwrap_or(Path::new("."))).ok()?;
    (d.permissions().mode() & 0o1000 != 0 && me != 0 && me != t.uid() && me != d.uid()).then(|| {
        format!(
            "cannot replace '{}': it belongs to another user, in a directory where only a \
             file's owner may replace it (sticky, as /tmp)",
            path.display()
        )
    })
}

/// Writes `text` to `path` through a temporary file in the same directory, flushed to disk and
/// then renamed into place, so a crash or a full disk never leaves a half-written file: `path`
/// holds either its old content or the new one. A symbolic link is followed (its target is
/// replaced); an existing file keeps its permissions, and its owner and group where the user
/// may set them (root may). Only a regular file that the user may write, in a directory the
/// user may write, is replaced. The file is replaced, not written in place: another hard link
/// to it keeps the old content.
///
/// # Errors
/// When the directory cannot take the temporary file, the disk is full, `path` is a directory,
/// a device, a pipe, a socket, a symbolic link that cannot be followed or a file the user may
/// not write, or the rename fails; and when `text` is longer than the 4 MiB `--load` reads.
pub fn save_atomically(path: &Path, text: &str) -> Result<()> {
    write_via_temp(path, text, true)
}

/// As [`save_atomically`], but only if `path` does not exist: the new file is linked into
/// place, which fails if another program made one meanwhile (two `kalah play --save F`
/// started together: one of them is refused).
///
/// # Errors
/// As [`save_atomically`], and when `path` exists.
pub fn save_new_atomically(path: &Path, text: &str) -> Result<()> {
    write_via_temp(path, text, false)
}

/// [`save_atomically`] (`replace`) or [`save_new_atomically`].
fn write_via_temp(path: &Path, text: &str, replace: bool) -> Result<()> {
    // A record `--load` would refuse is not written (tester 82: a loaded record with a comment
    // of nearly 4 MiB grew past the limit with the tags `save` adds, and replaced the file).
    if text.len() as u64 > MAX_RECORD_BYTES {
        bail!(
            "the record would take {} bytes, over the {} MiB that --load reads (its comments or \
             tags are too long), so it is not written",
            text.len(),
            MAX_RECORD_BYTES >> 20
        );
    }
    let (target, dir) = save_target(path)?;
    let (tmp_path, mut file) = temp_beside(&target, &dir)?;
    let me = writer_uid(&file);
    let written = (|| -> std::io::Result<()> {
        if let Ok(m) = std::fs::metadata(&target) {
            use std::os::unix::fs::MetadataExt;
            file.set_permissions(m.permissions())?;
            // Only root may give a file to another user; for others this keeps their own
            // user and group, or fails harmlessly.
            let _ = std::os::unix::fs::fchown(&file, Some(m.uid()), Some(m.gid()));
        }
        file.write_all(text.as_bytes())?;
        file.flush()?;
        file.sync_all()?;
        drop(file);
        if replace {
            std::fs::rename(&tmp_path, &target)?;
        } else {
            std::fs::hard_link(&tmp_path, &target).map(|()| {
                let _ = std::fs::remove_file(&tmp_path);
            })?;
        }
        // The directory's new entry to disk too, so that a power loss right after the save
        // cannot undo the rename (tester 73). Best effort: some file systems refuse to sync a
        // directory, and the file itself is whole either way.
        if let Ok(d) = std::fs::File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp_path);
        if !replace && e.kind() == std::io::ErrorKind::AlreadyExists {
            bail!(
                "'{}' exists: another program made it meanwhile",
                path.display()
            );
        }
        if replace && e.kind() == std::io::ErrorKind::PermissionDenied {
            if let Some(why) = me.and_then(|me| sticky_refusal(path, &target, me)) {
                bail!(why);
            }
            bail!("cannot replace '{}': {e}", path.display());
        }
        bail!("{e}");
    }
    Ok(())
}

/// A game in progress.
struct Game {
    record: GameRecord,
    rules: Rules,
    /// Whether the player who started on South (index 0) / North (index 1) is a person.
    human: [bool; 2],
    engine: Option<Engine>,
    hint_engine: Option<Engine>,
    egdb: Option<Arc<Egdb>>,
    /// Threads of the engine and of the hint engine.
    threads: usize,
    level: Level,
    limits: Limits,
    /// `--engine-info`: a line after each of the engine's actions with what its search found.
    engine_info: bool,
    paint: Paint,
    /// stdin is not a terminal: echo the commands read, and stop when the game ends.
    piped: bool,
    /// Number of actions when the board was last drawn.
    drawn_at: Option<usize>,
    /// Whether a damaged database layer was reported.
    warned_damaged: bool,
    /// What Ctrl-C does; its stop flag is the engines'.
    ctrl_c: Arc<CtrlC>,
    /// A Ctrl-C hurried the engine's turn, which goes on after an extra turn: its next actions
    /// are played at once too (tester 74: each action thought again for the whole time).
    hurried: bool,
    /// `--save FILE`: the file written after every change of the record.
    keep: Option<PathBuf>,
    /// `--save` writes the JSON form (the file was loaded in that form with `--load`, or is new
    /// and named `*.json`).
    keep_json: bool,
    /// Why the latest write of `--save`'s file failed, if it did: the file then holds an
    /// earlier state of the game.
    keep_error: Option<String>,
    /// What `--save`'s file held when this session last loaded or wrote it: a file that holds
    /// something else was changed by another program and is not replaced ([`replace_kept`]).
    keep_last: Vec<u8>,
    /// The files (canonical paths) this session loaded or saved, each with what it held then:
    /// `save` replaces such a file, whatever game it holds, as long as it still holds that.
    own_files: Vec<(PathBuf, Vec<u8>)>,
}

/// Replaces `--save`'s file `path` with `text` ([`save_atomically`]) unless it holds neither
/// `last`, what this session last found or wrote in it, nor `text`: another program changed
/// it meanwhile (tester 40: two sessions on one `--load F --save F` each overwrote the other's
/// moves, both exiting 0). A file gone is written anew: returns whether it was gone (deleted or
/// moved away), for the session to say so.
///
/// # Errors
/// As [`save_atomically`], and when the file was changed by another program.
fn replace_kept(path: &Path, text: &str, last: &[u8]) -> Result<bool> {
    let gone = match read_regular(path) {
        Ok(now) => {
            if now != last && now != text.as_bytes() {
                bail!(
                    "it was changed by another program since this session last wrote it \
                     (another kalah play on the same file?), so it is not replaced"
                );
            }
            false
        }
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    };
    save_atomically(path, text)?;
    Ok(gone)
}

/// Follows the symbolic link `path` link by link (at most 40, as the system does): the links
/// passed through after `path` itself, and where the chain ends (as its last link names it).
fn link_chain(path: &Path) -> (Vec<PathBuf>, PathBuf) {
    let mut through = Vec::new();
    let mut at = path.to_path_buf();
    let mut target = PathBuf::new();
    for _ in 0..40 {
        let Ok(next) = std::fs::read_link(&at) else {
            break;
        };
        // A relative target is relative to the link's own directory.
        let full = match at.parent() {
            Some(dir) if next.is_relative() => dir.join(&next),
            _ => next.clone(),
        };
        target = next;
        if !std::fs::symlink_metadata(&full).is_ok_and(|m| m.file_type().is_symlink()) {
            break;
        }
        through.push(target.clone());
        at = full;
    }
    (through, target)
}

/// The bytes of the regular file `path`. Opened without blocking and checked before reading:
/// a FIFO put in place of `--save`'s file during a game blocked the read-back for good, deaf to
/// Ctrl-C (tester 59).
///
/// # Errors
/// When `path` cannot be opened or read, or is not a regular file.
pub(crate) fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let mut file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other(
            "not a regular file (a device, a pipe or a socket)",
        ));
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// What `--save`'s file `path` holds after a write that failed, for the messages: what this
/// session last wrote or found in it (`last`), or another program's content, left as it is
/// (it was said to hold an earlier state of the game either way, tester 57).
fn left_in(path: &Path, last: &[u8]) -> &'static str {
    match read_regular(path) {
        Ok(now) if now == last => "holds an earlier state of the game",
        Ok(_) => "holds what another program wrote in it, left as it is",
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "is not there",
        Err(_) => "cannot be read back",
    }
}

/// The player (named by the side he started on) who owns board side `side` after `swapped`.
fn player_of(side: Side, swapped: bool) -> Side {
    if swapped {
        side.opposite()
    } else {
        side
    }
}

impl Game {
    fn swapped(&self) -> bool {
        self.record.moves().contains(&Move::Swap)
    }

    fn vs_engine(&self) -> bool {
        self.human != [true, true]
    }

    /// `(you)`, `(engine, medium)`, or for two people nothing (`(started as South)` after a
    /// swap).
    fn role(&self, board_side: Side, swapped: bool) -> String {
        let player = player_of(board_side, swapped);
        if self.vs_engine() {
            if self.human[player.index()] {
                "(you)".to_string()
            } else {
                format!("(engine, {})", self.level)
            }
        } else if swapped {
            format!("(started as {player})")
        } else {
            String::new()
        }
    }

    fn who(&self, board_side: Side, swapped: bool) -> String {
        let role = self.role(board_side, swapped);
        if role.is_empty() {
            board_side.to_string()
        } else {
            format!("{board_side} {role}")
        }
    }

    fn is_human_to_move(&self, pos: &Position) -> bool {
        let player = player_of(pos.side(), self.swapped());
        self.human[player.index()]
    }

    fn draw(&mut self) -> Result<()> {
        let pos = self.record.position();
        let swapped = self.swapped();
        let last = self.last_action().and_then(|(before, mv, out)| match mv {
            Move::Sow(h) if out.ended.is_none() => Some((before.side(), h as usize)),
            _ => None,
        });
        let labels = BoardLabels {
            north: self.role(Side::North, swapped),
            south: self.role(Side::South, swapped),
            last,
        };
        self.drawn_at = Some(self.record.moves().len());
        print(&format!("\n{}", board::draw(&pos, &labels, self.paint)))
    }

    /// The last action with the position before it and its outcome.
    fn last_action(&self) -> Option<(Position, Move, Outcome)> {
        let moves = self.record.moves();
        let mv = *moves.last()?;
        let positions = self.record.positions();
        let mut before = positions[moves.len() - 1];
        let p = before;
        let out = before.play_unchecked(&self.rules, mv);
        Some((p, mv, out))
    }

    /// Plays `mv` for the side to move and says what happened.
    ///
    /// # Errors
    /// `Err(MoveError)` if the action is illegal; nothing changes then.
    fn act(&mut self, mv: Move) -> Result<Result<(), MoveError>> {
        let before = self.record.position();
        let swapped_before = self.swapped();
        let mut after = before;
        let out = match after.play(&self.rules, mv) {
            Ok(o) => o,
            Err(e) => return Ok(Err(e)),
        };
        let failed = self.saving(|g| {
            g.record.push(mv)?;
            g.ctrl_c.kept_in(None);
            // Written before the action's line is printed: a closed output (the print fails)
            // must not lose it.
            Ok(g.write_kept())
        });
        let failed = failed.map_err(|e: RecordError| {
            anyhow::anyhow!("the game record refused a legal action {mv}: {e}")
        })?;
        let who = self.who(before.side(), swapped_before);
        let line = match mv {
            Move::Sow(h) => {
                let what = board::describe(&before, &self.rules, &out);
                format!("{who} plays {h}: {what}.")
            }
            Move::Swap => format!(
                "{who} plays swap (pie rule): the players exchange sides. {} now owns South's \
                 row and store; {} moves next.",
                self.who(Side::South, true),
                self.who(Side::North, true)
            ),
        };
        let line = if out.captured > 0 || out.extra_turn {
            self.paint.good(&line)
        } else {
            line
        };
        print(&format!("{line}\n"))?;
        self.tell_kept(failed)?;
        Ok(Ok(()))
    }

    fn report_end(&self) -> Result<()> {
        let pos = self.record.position();
        let Some(score) = pos.score(&self.rules) else {
            return Ok(());
        };
        let swapped = self.swapped();
        let [s, n] = score;
        let verdict = match s.cmp(&n) {
            std::cmp::Ordering::Greater => {
                format!("{} wins by {}", self.who(Side::South, swapped), s - n)
            }
            std::cmp::Ordering::Less => {
                format!("{} wins by {}", self.who(Side::North, swapped), n - s)
            }
            std::cmp::Ordering::Equal => "a draw".to_string(),
        };
        let line = format!("Game over. Final score: South {s}, North {n}: {verdict}.");
        print(&format!("{}\n", self.paint.bold(&line)))
    }

    /// Takes back to the start of the latest earlier turn of a person. Returns how many actions
    /// were taken back (0: nothing to undo), and what `--save`'s write has to tell
    /// ([`Self::tell_kept`]).
    fn undo(&mut self) -> (usize, Option<Result<String, String>>) {
        let moves = self.record.moves().to_vec();
        let positions = self.record.positions();
        let n = moves.len();
        // The player (start side) to move at each position index k.
        let mut swapped = false;
        let mut player_at = Vec::with_capacity(n + 1);
        for k in 0..=n {
            player_at.push(player_of(positions[k].side(), swapped));
            if k < n && moves[k] == Move::Swap {
                swapped = true;
            }
        }
        let target = (0..n).rev().find(|&k| {
            let turn_starts = k == 0 || player_at[k] != player_at[k - 1];
            turn_starts && self.human[player_at[k].index()]
        });
        match target {
            Some(k) => self.saving(|g| {
                for _ in k..n {
                    g.record.pop();
                }
                g.ctrl_c.kept_in(None);
                (n - k, g.write_kept())
            }),
            None => (0, None),
        }
    }

    fn hint(&mut self) -> Result<()> {
        let pos = self.record.position();
        let Some(side) = pos.to_move() else {
            return print("The game is over: there is nothing to hint.\n");
        };
        let limits = Limits {
            // --move-time-ms, else 2 s: --move-nodes alone lifts the engine's time limit
            // (Duration::MAX), not the hint's (tester 23: such a hint never ended).
            time: Some(match self.limits.time {
                Some(t) if t != Duration::MAX => t,
                _ => DEFAULT_HINT_TIME,
            }),
            nodes: None,
        };
        let engine = self.hint_engine.get_or_insert_with(|| {
            let mut e = Engine::new(Level::Perfect);
            e.set_egdb(self.egdb.clone());
            e.set_threads(self.threads);
            e.set_stop_flag(Arc::clone(&self.ctrl_c.stop));
            e
        });
        // The hint may take its whole time limit (2 s by default): say so meanwhile.
        let shown = thinking_line(&format!("Working out the hint for {side}..."))?;
        let values = {
            let _search = self.ctrl_c.search();
            engine.hint(&pos, &self.rules, limits)
        };
        erase_thinking_line(shown)?;
        if values.is_empty() {
            return print("No legal action to hint.\n");
        }
        let best = values.iter().map(|v| v.value).max().unwrap_or(0);
        // A Ctrl-C that came as the hint finished leaves every value exact: nothing is missing.
        let stopped = self.ctrl_c.stopped() && !values.iter().all(|v| v.exact);
        let mut s = if stopped {
            // On a terminal the ^C echoed ends the line first, unless it was echoed on the
            // erased thinking line.
            format!(
                "{}Hint stopped by Ctrl-C, partial: what was found so far; final store difference \
                 for {side} with best play (* = exact, else an estimate):\n",
                if self.piped || shown { "" } else { "\n" }
            )
        } else {
            format!(
                "Hint for {side}: final store difference, best play (* = exact, else estimated):\n"
            )
        };
        for v in &values {
            let mark = if v.exact { "*" } else { " " };
            let best_mark = if v.value == best { "  <- best" } else { "" };
            let line = format!("  {:>4}: {:+}{mark}{best_mark}", v.mv.to_string(), v.value);
            s.push_str(line.trim_end());
            s.push('\n');
        }
        print(&s)
    }

    /// `review`: every whole turn played so far valued against the best turn of its position
    /// (`kalah review`'s table and summary), within [`REVIEW_TIME`] in all: positions are
    /// solved from the last back, so when the time runs out (or Ctrl-C stops it) the last
    /// turns are reviewed and the earlier ones are said not to be.
    fn review(&mut self) -> Result<()> {
        let turns: Vec<Turn> = self.record.turns().into_iter().map(|t| t.turn).collect();
        if turns.is_empty() {
            return print("No turn has been played yet: there is nothing to review.\n");
        }
        let mut start = self.record.start;
        start.settle(&self.rules);
        let tt_mb = crate::cmd::solve::default_tt_for(
            &self.rules,
            &start,
            self.egdb.as_ref().map(|db| db.max_seeds()),
            &crate::cmd::solve::Limits {
                time_ms: Some(REVIEW_TIME.as_millis() as u64),
                nodes: None,
            },
        );
        let mut solver = Solver::new(self.rules, tt_mb);
        solver.set_egdb(self.egdb.clone());
        solver.set_stop_flag(Arc::clone(&self.ctrl_c.stop));
        let shown = thinking_line("Reviewing the game (up to 10 s; Ctrl-C stops)...")?;
        let deadline = Instant::now() + REVIEW_TIME;
        let reviews = {
            let _search = self.ctrl_c.search();
            let stop = Arc::clone(&self.ctrl_c.stop);
            kalah_solver::review::review_game(
                &mut solver,
                &start,
                &turns,
                self.threads,
                || SearchLimits {
                    deadline: Some(deadline),
                    nodes: None,
                },
                |_, _| Instant::now() < deadline && !stop.load(Ordering::SeqCst),
            )
        };
        erase_thinking_line(shown)?;
        let (reviews, nodes) = match reviews {
            Ok(r) => (r.turns, r.nodes),
            // Not expected: the record's turns were played by this game.
            Err((k, why)) => return print(&format!("! turn {k} cannot be reviewed: {why}\n")),
        };
        let secs = (REVIEW_TIME.saturating_sub(deadline.saturating_duration_since(Instant::now())))
            .as_secs_f64();
        let why = if self.ctrl_c.stopped() {
            "stopped by Ctrl-C"
        } else if reviews.is_empty() {
            "the last position alone takes longer than 10 s to solve; 'save FILE', then \
             'kalah review FILE' takes the time it needs (endgame databases, 'kalah egdb build', \
             make it faster)"
        } else {
            "out of time"
        };
        // The players named as `save` names them (the record's tags are filled in when saved).
        let mut record = self.record.clone();
        name_players_in(&mut record, self.human, self.level);
        print(&crate::cmd::review::review_text(
            &record,
            &start,
            &turns,
            &reviews,
            (nodes, secs),
            why,
        ))
    }

    /// Runs `f` holding [`CtrlC::saving`]: a Ctrl-C that quits meanwhile waits until it is
    /// done, so a change of the record and the write of a file that keeps it happen as one.
    fn saving<R>(&mut self, f: impl FnOnce(&mut Game) -> R) -> R {
        let ctrl_c = Arc::clone(&self.ctrl_c);
        let _saving = ctrl_c.saving.lock();
        f(self)
    }

    /// Names this session's players in the record's South and North tags, as `save` writes
    /// them.
    fn name_players(&mut self) {
        name_players_in(&mut self.record, self.human, self.level);
    }

    /// `--save FILE`: writes the record to FILE (in the form it was loaded in), silently,
    /// unless the file holds it already (an undo and the same action again).
    /// Returns what to tell, if anything: `Err` the first failure of a run of them, `Ok` the
    /// write that ends such a run. The caller prints it ([`Self::tell_kept`]) once any lock is
    /// released. A failed write's text is left to a quitting Ctrl-C to try again.
    fn write_kept(&mut self) -> Option<Result<String, String>> {
        let path = self.keep.clone()?;
        self.name_players();
        let text = if self.keep_json {
            self.record.to_json()
        } else {
            self.record.to_text()
        };
        let file = path.display().to_string();
        // After a failed write the file may hold it already (an undo and the same action
        // again: tester 25); read back, not remembered, as the file may have gone meanwhile.
        // Otherwise it holds the record before this change.
        let holds =
            self.keep_error.is_some() && read_regular(&path).is_ok_and(|b| b == text.as_bytes());
        let written = if holds {
            Ok(false)
        } else {
            replace_kept(&path, &text, &self.keep_last)
        };
        let mut pending = self
            .ctrl_c
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        match written {
            Ok(gone) => {
                *pending = None;
                self.keep_last = text.into_bytes();
                self.ctrl_c.kept_in(Some(&file));
                let again = self.keep_error.take().is_some();
                // A file deleted or moved away during the game is written anew, and said
                // (tester 60: it was quietly made again).
                match (again, gone) {
                    (true, _) => Some(Ok(format!("The game is kept in '{file}' again."))),
                    (false, true) => Some(Ok(format!(
                        "'{file}' was gone (deleted or moved away since this session last wrote \
                         it): written anew, the game is kept in it."
                    ))),
                    (false, false) => None,
                }
            }
            Err(e) => {
                // A record too long for `--load` fits no other file either (tester 104: the
                // advice was `save FILE`, which failed the same way).
                let elsewhere = if text.len() as u64 > MAX_RECORD_BYTES {
                    "no other file can hold it either (save FILE refuses it too): its comments \
                     or tags must be shortened in the record it was loaded from"
                } else {
                    "type save FILE to keep it elsewhere"
                };
                *pending = Some((path.clone(), text, self.keep_last.clone()));
                let first = self.keep_error.is_none();
                let why = crate::output::error_line(&e);
                self.keep_error = Some(why.clone());
                let left = left_in(&path, &self.keep_last);
                first.then(|| {
                    Err(format!(
                        "cannot keep the game in '{file}' (--save): {why}; the file {left}; each \
                         later action or undo tries again (or {elsewhere})"
                    ))
                })
            }
        }
    }

    /// Prints what [`Self::write_kept`] returned, if anything.
    fn tell_kept(&self, told: Option<Result<String, String>>) -> Result<()> {
        match told {
            Some(Err(msg)) => self.complain(&msg),
            Some(Ok(msg)) => print(&format!("{msg}\n")),
            None => Ok(()),
        }
    }

    fn save(&mut self, file: &str) -> Result<()> {
        self.name_players();
        let path = Path::new(file);
        if self.keep_json && self.keep.as_deref().is_some_and(|k| same_file(k, path)) {
            // `save` to `--save`'s own file writes it as `--save` does (a JSON record stays
            // JSON).
            let told = self.saving(Game::write_kept);
            self.tell_kept(told)?;
            if self.keep_error.is_some() {
                return Ok(());
            }
        } else {
            // A file that is there and is not a game (notes, say) is not replaced: `save` is
            // meant to replace an earlier save, not whatever has the name (tester 35).
            let mut json = wants_json(path);
            if std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() > 0) {
                // A file this session loaded or wrote, unchanged since, is replaced whatever it
                // holds (an undo, then `save` over the same file, takes the game back there).
                let unchanged = self
                    .last_seen(path)
                    .filter(|last| read_regular(path).is_ok_and(|now| now == *last));
                match unchanged {
                    // What this session wrote or loaded: a record, in the form it was in.
                    Some(last) => {
                        json |= std::str::from_utf8(last).is_ok_and(GameRecord::is_json_form)
                    }
                    None => match load_record(path) {
                        Err(_) => {
                            return self.complain(&format!(
                                "'{file}' exists and does not hold a game record, so it is not \
                                 replaced: save to another name (or delete it first); the game \
                                 goes on"
                            ));
                        }
                        Ok((other, other_json)) => {
                            json |= other_json;
                            if let Some(why) = self.would_lose(&other, path) {
                                return self.complain(&format!(
                                    "'{file}' {why}, so it is not replaced: save to another name \
                                     (or delete it first); the game goes on"
                                ));
                            }
                        }
                    },
                }
            }
            // A Ctrl-C that quits waits for the write (see CtrlC::saving).
            let text = if json {
                self.record.to_json()
            } else {
                self.record.to_text()
            };
            let kept_here = self.keep.as_deref().is_some_and(|k| same_file(k, path));
            let write = |g: &mut Game| {
                if kept_here {
                    replace_kept(path, &text, &g.keep_last).map(drop)
                } else {
                    save_atomically(path, &text)
                }
            };
            if let Err(e) = self.saving(write) {
                return self.complain(&format!(
                    "cannot save to '{file}': {}{}; the game goes on",
                    crate::output::error_line(&e),
                    tilde_hint(file)
                ));
            }
            if kept_here {
                self.keep_last = text.clone().into_bytes();
            }
            self.saw(path, text.into_bytes());
            self.ctrl_c.kept_in(Some(file));
        }
        let arg = crate::output::shell_path(file);
        let n = self.record.moves().len();
        print(&format!(
            "Saved the game to '{file}' ({n} action{}); continue it with: kalah play --load {arg}\n",
            if n == 1 { "" } else { "s" }
        ))
    }

    /// What `path` held when this session last loaded or wrote it (`--save`'s file: its last
    /// write), if it did.
    fn last_seen(&self, path: &Path) -> Option<&[u8]> {
        if self.keep.as_deref().is_some_and(|k| same_file(k, path)) {
            return Some(&self.keep_last);
        }
        let c = std::fs::canonicalize(path).ok()?;
        self.own_files
            .iter()
            .find(|(p, _)| *p == c)
            .map(|(_, b)| b.as_slice())
    }

    /// Remembers that `path` holds `bytes`, as this session loaded or wrote it.
    fn saw(&mut self, path: &Path, bytes: Vec<u8>) {
        let Ok(c) = std::fs::canonicalize(path) else {
            return;
        };
        match self.own_files.iter_mut().find(|(p, _)| *p == c) {
            Some((_, b)) => *b = bytes,
            None => self.own_files.push((c, bytes)),
        }
    }

    /// Why replacing `path`, which holds the record `other` and is not (or no longer) as this
    /// session last saw it, would lose moves: `other` is another game (other rules, another
    /// start, or moves that neither lead to this game's nor follow from them: tester 49, a
    /// mistyped name lost a saved game), or this game with more moves than this session's
    /// (tester 52: `save` in a new session wiped a finished game of the same start). `None`
    /// when this game's record holds every move of `other`.
    fn would_lose(&self, other: &GameRecord, path: &Path) -> Option<String> {
        let n = other.moves().len();
        let here = self.record.moves().len();
        let actions = |n: usize| format!("{n} action{}", if n == 1 { "" } else { "s" });
        let changed = if self.last_seen(path).is_some() {
            " (changed by another program since this session last read or wrote it)"
        } else {
            ""
        };
        if !same_game(other, &self.record) {
            Some(format!(
                "holds another game{changed} ({} from {})",
                actions(n),
                other.start
            ))
        } else if let Some(players) = other_players(other, &self.record) {
            // The same moves by other players (tester 110: a human game's save replaced the
            // record of a game against `hard` that had begun the same way).
            Some(format!(
                "holds a game of other players{changed} ({players}; {})",
                actions(n)
            ))
        } else if n > here {
            Some(format!(
                "holds this game further on{changed} ({}, {} here)",
                actions(n),
                actions(here)
            ))
        } else {
            let mut lost = lost_annotations(other, &self.record);
            let last = lost.pop()?;
            let all = if lost.is_empty() {
                last
            } else {
                format!("{} and {last}", lost.join(", "))
            };
            Some(format!(
                "holds {all} that this game's record lacks{changed}"
            ))
        }
    }

    fn complain(&self, msg: &str) -> Result<()> {
        let msg = kalah_core::error::bounded(msg);
        print(&format!("{}\n", self.paint.error(&format!("! {msg}"))))
    }

    fn engine_move(&mut self) -> Result<()> {
        let pos = self.record.position();
        let who = self.who(pos.side(), self.swapped());
        let show_thinking = thinking_line(&format!("{who} is thinking..."))?;
        let engine = self
            .engine
            .as_mut()
            .context("no engine for the engine's side")?;
        let started = Instant::now();
        let hurry = self.hurried;
        let choice = {
            let _search = self.ctrl_c.search_hurried(hurry);
            engine.choose_with(&pos, &self.rules, self.limits)
        }
        .with_context(|| format!("the engine found no action in {pos}"))?;
        let seconds = started.elapsed().as_secs_f64();
        erase_thinking_line(show_thinking)?;
        let stopped = self.ctrl_c.stopped();
        if stopped && !hurry {
            print("Ctrl-C: the engine moves now, with the best action it found so far.\n")?;
        }
        if let Err(e) = self.act(choice.mv)? {
            bail!(
                "the engine chose an illegal action {} in {pos}: {e}",
                choice.mv
            );
        }
        // The rest of a hurried turn is hurried too (the engine still to move: an extra turn;
        // after a swap the other player moves); the next turn is not.
        let after = self.record.position();
        self.hurried = stopped && after.to_move().is_some() && !self.is_human_to_move(&after);
        if self.engine_info {
            let info = engine_info(&pos, &self.rules, &choice, seconds);
            print(&format!("  {info}\n"))?;
        }
        Ok(())
    }

    fn prompt(&self, pos: &Position) -> String {
        let legal = board::legal_list(pos, &self.rules);
        let swapped = self.swapped();
        let who = if self.vs_engine() {
            format!("Your move ({})", pos.side())
        } else {
            format!("{} to move", self.who(pos.side(), swapped))
        };
        format!("{who}; legal: {legal}> ")
    }

    /// The end of a game whose terminal was closed: its read failed with EIO, mostly before
    /// the SIGHUP that comes with it was handled (tester 94: 4 closed windows in 6 ended with
    /// exit code 1 and `cannot read stdin: Input/output error`). The signal's handler is given
    /// half a second to end the game as documented (exit code 129, `kalah: hung up (SIGHUP):
    /// ...`, see [`CtrlC::exit`]); without a signal, the error says what became of the game.
    fn terminal_gone(&self, e: &std::io::Error) -> anyhow::Error {
        // The handler ends the process (it waits for a write under way first).
        crate::signals::yield_to_signal_end(Duration::from_millis(500), Duration::from_millis(10));
        anyhow::anyhow!(
            "cannot read stdin: the terminal is gone ({e}); the game cannot go on: {}",
            self.ctrl_c.fate()
        )
    }

    /// Reads one line; `None` at the end of input. A line longer than [`MAX_LINE`] bytes is read
    /// to its end but not kept; it comes back as [`Line::TooLong`].
    ///
    /// # Errors
    /// A line without its end within [`ENDLESS_LINE`](crate::input::ENDLESS_LINE) bytes (`kalah
    /// play < /dev/zero` read one endless line forever, at full speed): the input is no typed
    /// commands, and the game cannot go on. And stdin's I/O errors.
    fn read_line(&self, input: &mut impl BufRead) -> Result<Option<Line>> {
        let mut buf = Vec::new();
        let limit = crate::input::ENDLESS_LINE;
        let read = match crate::input::read_line(input, &mut buf, MAX_LINE, limit) {
            Ok(read) => read,
            Err(e) if e.raw_os_error() == Some(EIO) => return Err(self.terminal_gone(&e)),
            Err(e) => return Err(anyhow::Error::new(e).context("cannot read stdin")),
        };
        if read == crate::input::LineRead::End {
            return Ok(None);
        }
        if read == crate::input::LineRead::Abandoned {
            // Off the prompt's line, wherever stdout goes.
            print("\n")?;
            bail!(
                "stdin: a line is longer than {limit} bytes (a command is a few characters): \
                 not typed commands; the game cannot go on: {}",
                self.ctrl_c.fate()
            );
        }
        if read == crate::input::LineRead::TooLong {
            if self.piped {
                print("(a line too long to show)\n")?;
            }
            return Ok(Some(Line::TooLong));
        }
        let Ok(text) = std::str::from_utf8(&buf) else {
            let shown = show_bytes(buf.trim_ascii());
            if self.piped {
                print(&format!("{shown}\n"))?;
            }
            return Ok(Some(Line::NotUtf8(shown)));
        };
        // A byte-order mark (the start of a script saved by some editors) is no part of the
        // command, as in `solve --batch`.
        // Only the spaces and the line's end are cut here: a tab or an escape is part of what
        // was typed (a `save` name with one is refused).
        let blank = |c: char| c == ' ' || c == '\r' || c == '\n';
        let line = text
            .trim_matches(blank)
            .trim_start_matches('\u{feff}')
            .trim_matches(blank)
            .to_string();
        if self.piped {
            print(&format!("{}\n", printable(&line)))?;
        }
        Ok(Some(Line::Text(line)))
    }

    fn run(&mut self, input: &mut impl BufRead) -> Result<()> {
        loop {
            if !self.warned_damaged
                && self
                    .egdb
                    .as_ref()
                    .is_some_and(|db| db.damaged_layer().is_some())
            {
                self.warned_damaged = true;
                super::solve::warn_if_damaged(self.egdb.as_deref());
            }
            let pos = self.record.position();
            let over = pos.is_over();
            if !over && !self.is_human_to_move(&pos) {
                self.engine_move()?;
                continue;
            }
            if self.drawn_at != Some(self.record.moves().len()) {
                self.draw()?;
                if over {
                    self.report_end()?;
                }
            }
            if over && self.piped {
                return Ok(());
            }
            let prompt = if over {
                "The game is over: undo, review, save FILE or quit> ".to_string()
            } else {
                self.prompt(&pos)
            };
            self.ctrl_c.at_prompt(&prompt);
            print(&prompt)?;
            let line = self.read_line(input)?;
            self.ctrl_c.line_read();
            self.ctrl_c.command_typed();
            let Some(line) = line else {
                print("\n")?;
                if over {
                    return print("Bye.\n");
                }
                // The input may have ended because the same signal stopped its writer (a kill
                // of the whole process group, Ctrl-C on a pipeline): the signal's end, if it
                // comes at once, is the one told (tester 104: exit code 0 and "End of input").
                crate::signals::yield_to_signal_end(END_OF_INPUT_GRACE, Duration::from_millis(2));
                // Where the game is, as a Ctrl-C says it (tester 94).
                return print(&match self.ctrl_c.kept() {
                    Some(file) => format!(
                        "End of input: the game is left unfinished; it is kept in '{file}'.\n"
                    ),
                    None => "End of input: the game is left unfinished.\n".to_string(),
                });
            };
            let line = match line {
                Line::Text(t) => t,
                Line::TooLong => {
                    self.complain(&format!(
                        "that line is too long (over {MAX_LINE} bytes): type a house number, or help"
                    ))?;
                    continue;
                }
                Line::NotUtf8(shown) => {
                    // `save` takes a file name typed as text; other lines are moves or commands.
                    let hint = if shown.trim_start().starts_with("save ") {
                        "save takes a file name of UTF-8 text; the game goes on unsaved"
                    } else {
                        "type a house number, or help"
                    };
                    self.complain(&format!(
                        "'{shown}' is not UTF-8 text (\\xNN: a byte that is not part of a \
                         character): {hint}"
                    ))?;
                    continue;
                }
            };
            let cmd = match parse_command(&line) {
                Ok(c) => c,
                Err(msg) => {
                    // The message may quote what was typed: control characters made visible.
                    self.complain(&printable(&msg))?;
                    continue;
                }
            };
            match cmd {
                Command::Empty => {}
                Command::NoHouse(..) if over => {
                    // As any other action once the game is over (tester 94: a huge number
                    // was told the board's houses instead).
                    self.complain("the game is over: undo, review, save FILE or quit")?;
                }
                Command::NoHouse(word, turn) => {
                    // After other actions (`3-99999`): those are checked first, as in any
                    // other turn.
                    if let Some((e, there)) = turn
                        .as_deref()
                        .and_then(|t| Turn::refuse_large_house(t, &pos, &self.rules))
                        .map(|(e, there)| (as_typed(e, line.trim()), there))
                    {
                        // With the legal actions where the refused one was to be played, as
                        // for any other illegal action of a turn.
                        let msg = match e {
                            TurnError::Move { index, .. }
                            | TurnError::NoSuchLargeHouse { index, .. } => {
                                let typed = turn.as_deref().unwrap_or_default();
                                let done: Vec<&str> =
                                    typed.split(['-', ',']).take(index - 1).collect();
                                with_legal(&e, &done.join("-"), &there, &self.rules)
                            }
                            _ => e.to_string(),
                        };
                        self.complain(&msg)?;
                        continue;
                    }
                    let mut msg = format!(
                        "there is no house {}: houses are numbered 1 to {}",
                        kalah_core::error::clipped(&word),
                        pos.houses()
                    );
                    if let Some(turn) = &turn {
                        msg = format!("'{}': {msg}", kalah_core::error::clipped(turn));
                    }
                    // The legal actions are those of the turn's first action: said for an
                    // action alone.
                    if !over && turn.is_none() {
                        msg.push_str(&format!(
                            "; legal: {}",
                            board::legal_list(&pos, &self.rules)
                        ));
                    }
                    self.complain(&msg)?;
                }
                Command::Help => print(HELP)?,
                Command::Quit => return print("Bye.\n"),
                Command::Board => self.draw()?,
                Command::Hint => self.hint()?,
                Command::Review => self.review()?,
                Command::Save(file) => self.save(&file)?,
                Command::Undo => {
                    let (n, failed) = self.undo();
                    if n == 0 {
                        self.complain(if self.record.moves().is_empty() {
                            "nothing to undo: the game is at its start"
                        } else {
                            "nothing to undo: no earlier turn of yours"
                        })?;
                    } else {
                        print(&format!(
                            "Took back {n} action{}.\n",
                            if n == 1 { "" } else { "s" }
                        ))?;
                        self.tell_kept(failed)?;
                        self.drawn_at = None;
                    }
                }
                Command::Turn(turn, end) => {
                    if over {
                        self.complain("the game is over: undo, review, save FILE or quit")?;
                        continue;
                    }
                    // The whole turn is checked before any of it is played. It may stop
                    // before the turn is over (the player types the rest later), but must not
                    // go past its end; ending in `-`, it must stop before the end: kalah-core's
                    // check and wording.
                    let mut trial = pos;
                    // Messages quote the turn as typed (`1,swap`, not `1-swap`).
                    match turn
                        .play_as(&mut trial, &self.rules, end)
                        .map_err(|e| as_typed(e, line.trim()))
                    {
                        Ok(_) => {}
                        Err(e @ TurnError::Move { index, .. }) => {
                            // The legal actions where the illegal one was to be played.
                            let done = Turn(turn.moves()[..index - 1].to_vec());
                            let mut p = pos;
                            for &mv in done.moves() {
                                p.play_unchecked(&self.rules, mv);
                            }
                            let done = if done.moves().is_empty() {
                                String::new()
                            } else {
                                done.to_string()
                            };
                            self.complain(&with_legal(&e, &done, &p, &self.rules))?;
                            continue;
                        }
                        Err(e) => {
                            self.complain(&e.to_string())?;
                            continue;
                        }
                    }
                    for &mv in turn.moves() {
                        if let Err(e) = self.act(mv)? {
                            bail!("a checked move {mv} was refused: {e}");
                        }
                    }
                }
                Command::Action(mv) => {
                    if over {
                        self.complain("the game is over: undo, review, save FILE or quit")?;
                        continue;
                    }
                    if let Err(e) = self.act(mv)? {
                        let msg = match e {
                            MoveError::NoSuchHouse { .. }
                            | MoveError::EmptyHouse(_)
                            | MoveError::SwapNotAllowed => {
                                format!("{e}; legal: {}", board::legal_list(&pos, &self.rules))
                            }
                            _ => e.to_string(),
                        };
                        self.complain(&msg)?;
                    }
                }
            }
        }
    }
}

/// `--save FILE` may create FILE, or replace the game it continues (`--load FILE`, the same
/// file by any name: a link, another spelling), never another file. Returns whether FILE is
/// the `--load` file.
///
/// # Errors
/// When FILE has a control character, or exists and cannot be written (see [`save_target`]) or
/// is not the `--load` file.
fn check_save_target(path: &Path, load: Option<&Path>) -> Result<bool> {
    let name = path.to_string_lossy();
    if name.chars().any(char::is_control) {
        // As `save FILE` refuses one: a name that cannot be typed back (tester 25).
        bail!(
            "--save: a file name with control characters is refused: '{}'",
            printable(&name)
        );
    }
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(false);
    }
    // A directory, a device, a link that cannot be followed, a file the user may not write.
    save_target(path).context("--save")?;
    if load.is_some_and(|l| same_file(l, path)) {
        return Ok(true);
    }
    let arg = crate::output::shell_path(&path.display().to_string());
    bail!(
        "--save: '{}' exists, and --save does not replace a file: choose another name, or, if it \
         holds a game, go on with it: kalah play --load {arg} --save {arg}",
        path.display()
    )
}

/// What of the record `other` (an earlier state of this game) a save of `here` over it would
/// lose: its other tags (`the tag "Event"`), comments (`2 comments`) and hand-written player
/// names (`the player name "Alice"`) that `here` does not hold (tester 68: a `save` over a
/// record annotated by hand wiped them). Empty when `here` keeps everything.
fn lost_annotations(other: &GameRecord, here: &GameRecord) -> Vec<String> {
    let mut lost: Vec<String> = other
        .tags
        .iter()
        .filter(|t| !here.tags.contains(t))
        .map(|(name, _)| format!("the tag {}", quoted_tag(name)))
        .collect();
    for (theirs, ours) in [(&other.south, &here.south), (&other.north, &here.north)] {
        let hand_written = !theirs.trim().is_empty() && RecordedPlayer::parse(theirs).is_none();
        if hand_written && theirs.trim() != ours.trim() {
            lost.push(format!("the player name {}", quoted_tag(theirs.trim())));
        }
    }
    let comments = other
        .comments
        .iter()
        .filter(|(_, text)| !here.comments.iter().any(|(_, t)| t == text))
        .count();
    if comments > 0 {
        lost.push(format!(
            "{comments} comment{}",
            if comments == 1 { "" } else { "s" }
        ));
    }
    lost
}

/// The players of record `other` that `here` names otherwise, as `save` writes them (`North
/// "kalah engine hard" there, "human" here`), if any: `other` is then another game, however its
/// moves agree. An empty tag names no one; hand-written names are [`lost_annotations`]' concern.
fn other_players(other: &GameRecord, here: &GameRecord) -> Option<String> {
    let differ: Vec<String> = [
        ("South", &other.south, &here.south),
        ("North", &other.north, &here.north),
    ]
    .into_iter()
    .filter(|(_, theirs, ours)| {
        RecordedPlayer::parse(theirs).is_some() && theirs.trim() != ours.trim()
    })
    .map(|(side, theirs, ours)| {
        format!(
            "{side} {} there, {} here",
            quoted_tag(theirs.trim()),
            quoted_tag(ours.trim())
        )
    })
    .collect();
    (!differ.is_empty()).then(|| differ.join(", "))
}

/// For a `save` name that starts with `~` and whose folder is missing: the name is taken as
/// typed (a shell expands `~` on a command line; `play` reads names as they are), so the hint
/// names the whole path to write instead (tester 68: `save ~/t.txt` said only "cannot write in
/// '~'"). Empty otherwise.
fn tilde_hint(file: &str) -> String {
    let Some(rest) = file.strip_prefix("~/").filter(|r| !r.is_empty()) else {
        return String::new();
    };
    if Path::new("~").exists() {
        return String::new();
    }
    match std::env::var_os("HOME") {
        Some(home) => format!(
            " ('~' is not your home folder here, only on a shell's command line: write the whole \
             path, '{}')",
            Path::new(&home).join(rest).display()
        ),
        None => " ('~' is not your home folder here, only on a shell's command line: write the \
                  whole path)"
            .to_string(),
    }
}

/// Whether records `a` and `b` are of one game: the same rules and start, and the moves of
/// one lead to the other's (an earlier save of this game, or one taken back since).
fn same_game(a: &GameRecord, b: &GameRecord) -> bool {
    let (x, y) = (a.moves(), b.moves());
    let n = x.len().min(y.len());
    a.rules == b.rules && a.start == b.start && x[..n] == y[..n]
}

/// Whether `save FILE` or a new `--save FILE` writes the JSON form: a name ending in `.json`
/// (any case). An existing record in the JSON form is written back in that form too.
pub(crate) fn wants_json(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// Whether `a` and `b` name the same existing file (device and inode: links and spellings
/// included).
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Runs `kalah play`.
pub fn run(args: Args) -> Result<()> {
    let (record, loaded_json) = match &args.load {
        Some(path) => {
            let (record, json) = load_record(path)?;
            let what = format!("the Start position of '{}'", path.display());
            let note = crate::game_args::opening_rules_note(
                &record.rules,
                &record.start,
                &what,
                crate::game_args::RulesNamed::RecordTags,
            );
            if let Some(note) = note {
                stderr_line!("kalah: note: {note}");
            }
            (record, json)
        }
        None => (
            GameRecord::new(args.rules.rules(), args.rules.start_position()?),
            false,
        ),
    };
    let players = players(
        args.opponent,
        args.side,
        args.level,
        &[
            (args.seed.is_some(), "--seed"),
            (args.move_nodes.is_some(), "--move-nodes"),
            (args.engine_info, "--engine-info"),
        ]
        .iter()
        .filter(|&&(given, _)| given)
        .map(|&(_, flag)| flag)
        .collect::<Vec<_>>(),
        args.load.is_some().then_some(&record),
    );
    let me = players.side;
    let level = players.level;
    let human = match players.opponent {
        Opponent::Human => [true, true],
        Opponent::Engine => {
            let mut h = [false, false];
            h[me.index()] = true;
            h
        }
    };
    let egdb = if args.no_egdb {
        None
    } else {
        super::solve::open_egdb_dir(
            args.egdb_dir.as_deref(),
            record.start.houses(),
            &record.rules,
        )?
        .map(Arc::new)
    };
    let threads = match args.threads {
        None if args.seed.is_some() => 1,
        requested => crate::cmd::egdb::threads_for(requested),
    };
    let engine = (players.opponent == Opponent::Engine).then(|| {
        let mut e = match args.seed {
            Some(seed) => Engine::with_seed(level, seed),
            None => Engine::new(level),
        };
        e.set_egdb(egdb.clone());
        e.set_threads(threads);
        e
    });
    let limits = engine_limits(args.move_time_ms, args.move_nodes);
    let piped = !std::io::stdin().is_terminal();
    let ctrl_c = Arc::new(CtrlC::new(!piped));
    // A loaded game is in its file until an action is played or taken back.
    ctrl_c.kept_in(args.load.as_deref().and_then(Path::to_str));
    let engine = engine.map(|mut e| {
        e.set_stop_flag(Arc::clone(&ctrl_c.stop));
        e
    });
    {
        let ctrl_c = Arc::clone(&ctrl_c);
        // Only fails if a handler is already set (not in `kalah play`): Ctrl-C then keeps its
        // default, ending the process.
        let _ = crate::signals::on_stop(move |stop| match stop {
            crate::signals::Stop::CtrlC => ctrl_c.on_signal(),
            // `kill`, a closed terminal: the game ends now, as by a second Ctrl-C.
            crate::signals::Stop::End => ctrl_c.exit(),
        });
    }
    let rules = record.rules;
    let mut game = Game {
        record,
        rules,
        human,
        engine,
        hint_engine: None,
        egdb,
        threads,
        level,
        limits,
        engine_info: args.engine_info,
        paint: Paint::new(args.color.enabled()),
        piped,
        drawn_at: None,
        warned_damaged: false,
        ctrl_c,
        hurried: false,
        keep: None,
        keep_json: false,
        keep_error: None,
        keep_last: Vec::new(),
        own_files: args
            .load
            .iter()
            .filter_map(|p| Some((std::fs::canonicalize(p).ok()?, read_regular(p).ok()?)))
            .collect(),
    };
    if let Some(path) = &args.save {
        let context = || format!("--save: cannot keep the game in '{}'", path.display());
        // A quitting Ctrl-C waits for the first write (or the check) too.
        game.saving(|g| -> Result<()> {
            if check_save_target(path, args.load.as_deref())? {
                // The loaded file already holds the game: it is left as it is (its comments,
                // its layout, its form) until the game changes, then written in the form it was
                // read in. Whether it could be written is checked now.
                check_replaceable(path).with_context(context)?;
                g.keep_json = loaded_json;
                g.keep_last = read_regular(path).with_context(context)?;
            } else {
                // Written once before the game, so a file that cannot be written is said now,
                // with a non-zero exit, not after the first action.
                g.name_players();
                g.keep_json = wants_json(path);
                let text = if g.keep_json {
                    g.record.to_json()
                } else {
                    g.record.to_text()
                };
                save_new_atomically(path, &text).with_context(context)?;
                g.keep_last = text.into_bytes();
            }
            g.ctrl_c.kept_in(Some(&path.display().to_string()));
            g.keep = Some(path.clone());
            Ok(())
        })?;
    }
    let start = game.record.start;
    let m = start.houses();
    let pits = start.pits();
    let uniform = pits[0] > 0
        && pits[m] == 0
        && pits[2 * m + 1] == 0
        && pits[..m]
            .iter()
            .chain(&pits[m + 1..2 * m + 1])
            .all(|&n| n == pits[0]);
    let name = if uniform {
        format!("Kalah({m},{})", pits[0])
    } else {
        format!("Kalah, {m} houses a side")
    };
    let mut intro = format!("{name}. Start: {start}\n");
    if rules != Rules::default() {
        intro.push_str(&format!("Rules: {rules}\n"));
    }
    if let Some(path) = &args.load {
        let n = game.record.moves().len();
        intro.push_str(&format!(
            "Loaded '{}': {n} action{} played.\n",
            path.display(),
            if n == 1 { "" } else { "s" }
        ));
    }
    for note in &players.notes {
        intro.push_str(&format!("{note}\n"));
    }
    if let Some(path) = &args.save {
        intro.push_str(&format!(
            "The game is kept in '{}', written after every action and undo.\n",
            path.display()
        ));
    }
    if game.vs_engine() {
        // After a swap (a loaded game) you own the other row: say both, as the two-person
        // labels do ("North (started as South)").
        let you = if game.swapped() {
            format!(
                "You started as {me}; after the swap you play {}",
                me.opposite()
            )
        } else {
            format!("You play {me}")
        };
        intro.push_str(&format!(
            "{you} against the engine ({level}).\nType a house number to sow it, or help.\n"
        ));
    } else {
        intro.push_str("Two players at one terminal.\nType a house number to sow it, or help.\n");
    }
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut result = print(&intro).and_then(|()| game.run(&mut input));
    // From here the game ends normally, unless a signal's handler is ending it already.
    if !crate::signals::claim_end() {
        crate::signals::wait_for_end();
    }
    // A session that ends (quit, the end of input, a piped game over, a closed output) while
    // `--save`'s file holds an earlier state tries once more (under the lock a quitting Ctrl-C
    // waits on), then fails: a script must not take that file for the game (tester 24: exit 0
    // with the last move missing).
    if game.keep_error.is_some() {
        let _ = game.saving(Game::write_kept);
        if let (Some(why), Some(path), true) = (&game.keep_error, &game.keep, result.is_ok()) {
            result = Err(anyhow::anyhow!(
                "--save: '{}' does not hold the game as it stands: the last write failed ({why}); \
                 the file {}",
                path.display(),
                left_in(path, &game.keep_last)
            ));
        }
    }
    let result = result.map_err(|e| {
        // The reader of stdout went away (`kalah play | tee log`, then Ctrl-C ends `tee`): the
        // game cannot go on. `main` says that the output was closed; a game adds what became
        // of it.
        if crate::output::is_broken_pipe(&e) {
            e.context(crate::output::WhenClosed(game.ctrl_c.fate()))
        } else {
            e
        }
    });
    result.map_err(|e| {
        if crate::output::is_output_error(&e) && !crate::output::is_broken_pipe(&e) {
            // A full device, say: the error and where the game is, on `main`'s one line
            // (tester 73: two lines said it).
            anyhow::anyhow!("{}; {}", crate::output::error_line(&e), game.ctrl_c.fate())
        } else {
            e
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ctrl_c_while_a_line_is_handled_waits_for_the_search_or_the_prompt() {
        // Regression (tester 35): a Ctrl-C just after Enter printed the prompt's warning (and
        // the prompt before the move) between the two halves of a turn.
        let c = CtrlC::new(true);
        c.at_prompt("> ");
        c.line_read();
        c.on_signal();
        assert!(c.early.load(Ordering::SeqCst), "kept for what comes next");
        // The engine's search that follows stops at once: it moves now.
        {
            let _search = c.search();
            assert!(c.stopped());
        }
        assert!(!c.early.load(Ordering::SeqCst));
        // A search after that one runs in full.
        {
            let _search = c.search();
            assert!(!c.stopped());
        }
        // With no search before the next prompt, the prompt warns, so a second Ctrl-C quits.
        let c = CtrlC::new(true);
        c.at_prompt("> ");
        c.line_read();
        c.on_signal();
        assert!(c.times.lock().unwrap().warned.is_none());
        c.at_prompt("> ");
        assert!(!c.early.load(Ordering::SeqCst));
        assert!(c.times.lock().unwrap().warned.is_some());
        // At the prompt (not busy) a Ctrl-C warns at once, as before: nothing is kept for later.
        let c = CtrlC::new(true);
        c.at_prompt("> ");
        c.on_signal();
        assert!(!c.early.load(Ordering::SeqCst));
        assert!(c.times.lock().unwrap().warned.is_some());
    }

    #[test]
    fn ctrl_c_stops_searches_warns_at_the_prompt_and_quits_on_the_second() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        // On a terminal.
        let mut t = CtrlCTimes::default();
        assert_eq!(t.on_signal(at(0), true, true), OnCtrlC::Stop);
        // `timeout -s INT`'s second signal is the same interrupt.
        assert_eq!(t.on_signal(at(0), true, true), OnCtrlC::Same);
        // A later one during a search stops it too; never quits.
        assert_eq!(t.on_signal(at(1000), true, true), OnCtrlC::Stop);
        // At the prompt: a warning, then quit on a second within 5 s.
        assert_eq!(t.on_signal(at(2000), false, true), OnCtrlC::Warn);
        assert_eq!(t.on_signal(at(2050), false, true), OnCtrlC::Same);
        assert_eq!(t.on_signal(at(2500), false, true), OnCtrlC::Exit);
        // A second one more than 5 s later warns again.
        let mut t = CtrlCTimes::default();
        assert_eq!(t.on_signal(at(0), false, true), OnCtrlC::Warn);
        assert_eq!(t.on_signal(at(6000), false, true), OnCtrlC::Warn);
        // A search between the two, or a command typed, starts afresh.
        assert_eq!(t.on_signal(at(7000), true, true), OnCtrlC::Stop);
        assert_eq!(t.on_signal(at(8000), false, true), OnCtrlC::Warn);
        t.warned = None;
        assert_eq!(t.on_signal(at(9000), false, true), OnCtrlC::Warn);
        // A held-down Ctrl-C (key repeat every 40 ms): the repeats within 0.1 s of the first
        // are the same, a later one quits.
        let mut t = CtrlCTimes::default();
        assert_eq!(t.on_signal(at(0), false, true), OnCtrlC::Warn);
        assert_eq!(t.on_signal(at(40), false, true), OnCtrlC::Same);
        assert_eq!(t.on_signal(at(80), false, true), OnCtrlC::Same);
        assert_eq!(t.on_signal(at(120), false, true), OnCtrlC::Exit);
        // Piped input: a search is stopped, the prompt quits at once.
        let mut t = CtrlCTimes::default();
        assert_eq!(t.on_signal(at(0), true, false), OnCtrlC::Stop);
        assert_eq!(t.on_signal(at(500), false, false), OnCtrlC::Exit);
        // On a terminal, Ctrl-Cs pressed again and again to hurry the engine: those reaching
        // the prompt within a second of the stop are ignored, a later one warns.
        let mut t = CtrlCTimes::default();
        assert_eq!(t.on_signal(at(0), true, true), OnCtrlC::Stop);
        assert_eq!(t.on_signal(at(300), false, true), OnCtrlC::Same);
        assert_eq!(t.on_signal(at(600), false, true), OnCtrlC::Same);
        assert_eq!(t.on_signal(at(900), false, true), OnCtrlC::Same);
        assert_eq!(t.on_signal(at(1200), false, true), OnCtrlC::Warn);
        assert_eq!(t.on_signal(at(1500), false, true), OnCtrlC::Exit);
    }

    /// The first write of `--save` makes the file only if it is not there (two sessions
    /// started together: tester 25 saw both take the file); nothing is left behind.
    #[test]
    fn a_new_save_never_replaces_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("g.txt");
        save_new_atomically(&f, "first\n").unwrap();
        let e = save_new_atomically(&f, "second\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "'{}' exists: another program made it meanwhile",
                f.display()
            )
        );
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "first\n");
        save_atomically(&f, "third\n").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "third\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn recorded_players_read_as_save_writes_them() {
        assert_eq!(RecordedPlayer::parse("human"), Some(RecordedPlayer::Human));
        assert_eq!(
            RecordedPlayer::parse(" kalah engine easy "),
            Some(RecordedPlayer::Engine(Level::Easy))
        );
        assert_eq!(RecordedPlayer::parse("kalah engine grandmaster"), None);
        // Any white space between the words (tester 83).
        assert_eq!(
            RecordedPlayer::parse("KALAH engine  Hard"),
            Some(RecordedPlayer::Engine(Level::Hard))
        );
        assert_eq!(unknown_level("kalah engine  hard"), None);
        assert_eq!(
            unknown_level("kalah \t engine\u{a0}grandmaster "),
            Some("grandmaster".to_string())
        );
        assert_eq!(unknown_level("kalah engine"), None);
        assert_eq!(
            unknown_level("kalah engine grandmaster"),
            Some("grandmaster".to_string())
        );
        assert_eq!(RecordedPlayer::parse("Ann"), None);
        assert_eq!(RecordedPlayer::parse(""), None);
    }

    #[test]
    fn commands_parse() {
        assert_eq!(parse_command(" 3 "), Ok(Command::Action(Move::Sow(3))));
        assert_eq!(parse_command("SWAP"), Ok(Command::Action(Move::Swap)));
        assert_eq!(
            parse_command("save a b.txt"),
            Ok(Command::Save("a b.txt".into()))
        );
        assert_eq!(parse_command(""), Ok(Command::Empty));
        assert!(parse_command("save").is_err());
        assert_eq!(
            parse_command("save t\tz.txt"),
            Err("a file name with control characters is refused: 't\\tz.txt'".to_string())
        );
        // A tab before or after the name is refused too (tester 62), spaces are dropped.
        for typed in ["save \tx", "save x\t", "save\t\tx"] {
            assert!(
                parse_command(typed)
                    .is_err_and(|e| e.starts_with("a file name with control characters")),
                "{typed:?}"
            );
        }
        assert_eq!(
            parse_command("  save   x.txt  "),
            Ok(Command::Save("x.txt".into()))
        );
        assert_eq!(parse_command("save\tx"), Ok(Command::Save("x".into())));
        // An empty action in a typed turn is named as `show --moves` names it (tester 77).
        for typed in ["3--6", "3,,6", "3,", ",3", "-", "swap--1", "3--x"] {
            assert_eq!(
                parse_command(typed),
                Err(format!("'{typed}': {}", MoveError::EmptyAction)),
                "{typed}"
            );
        }
        assert!(parse_command("3-").is_ok_and(|c| matches!(c, Command::Turn(..))));
        assert!(parse_command("--help").is_err_and(|e| e.contains("is not a command")));
        // One pair of quotes around the whole name is taken off (tester 77); a lone quote, or
        // quotes inside the name, stay.
        for (typed, name) in [
            ("save \"my game.txt\"", "my game.txt"),
            ("save 'a b'", "a b"),
            ("save \"\"x\"\"", "\"x\""),
            ("save \"", "\""),
            ("save a\"b\"", "a\"b\""),
            ("save \"a'", "\"a'"),
        ] {
            assert_eq!(
                parse_command(typed),
                Ok(Command::Save(name.into())),
                "{typed}"
            );
        }
        for typed in ["save \"\"", "save ''", "save \" \"", "save '  '"] {
            assert!(
                parse_command(typed).is_err_and(|e| e.starts_with("save needs a file name")),
                "{typed}"
            );
        }
        assert_eq!(
            parse_command("save a\\tb.txt"),
            Ok(Command::Save("a\\tb.txt".into()))
        );
        assert!(parse_command("undo now").is_err());
        assert!(parse_command("3 4").is_err());
        assert_eq!(
            parse_command("999"),
            Ok(Command::NoHouse("999".into(), None))
        );
        assert_eq!(parse_command("-1"), Ok(Command::NoHouse("-1".into(), None)));
        assert!(parse_command("-").is_err());
        assert!(parse_command("-1 2").is_err());
        // A sign is refused as a leading zero is: as a move, not as an unknown command.
        for word in ["+1", "03"] {
            assert_eq!(
                parse_command(word),
                Err(format!(
                    "'{word}' is not a move: expected a house number (digits, no leading zero) or 'swap'"
                ))
            );
        }
        assert_eq!(
            parse_command("3-999"),
            Ok(Command::NoHouse("999".into(), Some("3-999".into())))
        );
        assert_eq!(
            parse_command("3-x"),
            Err("'x' in '3-x' is not a house number (digits, no leading zero)".into())
        );
        assert!(parse_command("fly").is_err());
        assert_eq!(
            parse_command("3-6"),
            Ok(Command::Turn(
                Turn(vec![Move::Sow(3), Move::Sow(6)]),
                TurnEnd::Prefix
            ))
        );
        assert_eq!(
            parse_command("1-Swap"),
            Ok(Command::Turn(
                Turn(vec![Move::Sow(1), Move::Swap]),
                TurnEnd::Prefix
            ))
        );
        // A trailing '-': the turn goes on (as the web API and records write an open turn).
        assert_eq!(
            parse_command("3-"),
            Ok(Command::Turn(Turn(vec![Move::Sow(3)]), TurnEnd::Open))
        );
        assert_eq!(
            parse_command("3-6-"),
            Ok(Command::Turn(
                Turn(vec![Move::Sow(3), Move::Sow(6)]),
                TurnEnd::Open
            ))
        );
        assert!(parse_command("3-x").unwrap_err().contains("'x' in '3-x'"));
        assert!(parse_command("3-x-").unwrap_err().contains("'x' in '3-x-'"));
        assert!(parse_command("3-6 1").is_err());
        for bad in ["-", "--", "3--", "3--6", "-3-", ",", "3,", ",3", "3,,6"] {
            assert!(parse_command(bad).is_err(), "{bad}");
        }
        // A comma between the actions, as kalah-core's Turn and the web API read it.
        assert_eq!(
            parse_command("3,6"),
            Ok(Command::Turn(
                Turn(vec![Move::Sow(3), Move::Sow(6)]),
                TurnEnd::Prefix
            ))
        );
        // Spaces inside a turn: the message shows the turn written without them.
        assert_eq!(
            parse_command("3 - 6"),
            Err("write a turn without spaces: '3-6', not '3 - 6'".to_string())
        );
        assert_eq!(
            parse_command("3 -6"),
            Err("write a turn without spaces: '3-6', not '3 -6'".to_string())
        );
        // Not for what is no turn without its spaces either (tester 69: `3 ,`).
        assert!(parse_command("3 ,")
            .unwrap_err()
            .starts_with("one action a line"));
        // ... and after the dash or comma (tester 68: "one turn a line").
        assert_eq!(
            parse_command("3- 6"),
            Err("write a turn without spaces: '3-6', not '3- 6'".to_string())
        );
        assert_eq!(
            parse_command("3, 6-1"),
            Err("write a turn without spaces: '3,6-1', not '3, 6-1'".to_string())
        );
        assert!(parse_command("3-6 1")
            .unwrap_err()
            .starts_with("one turn a line"));
        // A comment typed after an action (tester 68: "one action a line").
        for (line, word) in [("3 # strong", "3"), ("3-6 #x", "3-6")] {
            assert_eq!(
                parse_command(line),
                Err(format!(
                    "a '#' comment belongs in a game record file, not at the prompt: type \
                     '{word}' alone"
                )),
                "{line}"
            );
        }
    }
}
