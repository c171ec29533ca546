//! `kalah match`: engine against engine, for comparing levels.
//!
//! Games are played in pairs from the same opening, each level once as South: game 2k+1 has A as
//! South, game 2k+2 B. An opening is `--opening-plies` random legal actions, drawn from a
//! generator seeded by `--seed` and the pair's index; each engine is a fresh
//! `Engine::with_seed` per game, its seed derived from `--seed`, the game and the side. So with a
//! node limit and no time limit a match repeats exactly.
//!
//! Players are named by the side they start on, as in game records: under the pie rule a `swap`
//! gives the player who started North South's row and store.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use kalah_core::{Move, Position, Rules, Side};
use kalah_egdb::Egdb;
use kalah_engine::{Engine, Level, Limits};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use crate::cmd::play::{engine_limits, parse_move_nodes};
use crate::game_args::{parse_seed, RuleArgs};
use crate::output::{plural, print};

/// Arguments of `kalah match`.
#[derive(clap::Args, Debug)]
// `match` takes no position: its --houses default is the layout's count or 6 only.
#[command(mut_arg("houses", |a| a.help("Houses a side, 1 to 12 [default: 6, or the count of --layout]")))]
pub struct Args {
    /// Level of engine A: beginner, easy, medium, hard, expert or perfect.
    #[arg(value_name = "LEVEL_A")]
    pub a: Level,
    /// Level of engine B: beginner, easy, medium, hard, expert or perfect.
    #[arg(value_name = "LEVEL_B")]
    pub b: Level,
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Games to play, in pairs from the same opening with the colours swapped (A is South in
    /// the odd games, B in the even ones); an odd count leaves the last pair half-played.
    #[arg(
        long,
        value_name = "N",
        default_value = "2",
        allow_negative_numbers = true,
        value_parser = parse_games
    )]
    pub games: u64,
    /// Random legal actions (plies, not turns) that open each pair, 0 to 20.
    #[arg(
        long,
        value_name = "K",
        default_value = "0",
        allow_negative_numbers = true,
        value_parser = parse_opening_plies
    )]
    pub opening_plies: usize,
    /// Seed of the openings and of the engines' random choices: the same seed gives the same
    /// match (exactly with --move-nodes and no --move-time-ms).
    #[arg(
        long,
        value_name = "S",
        default_value = "0",
        allow_negative_numbers = true,
        value_parser = parse_seed
    )]
    pub seed: u64,
    /// Thinking time of each engine per action, in milliseconds [default: the level's]. With a
    /// time limit the results depend on the machine's speed and load.
    #[arg(
        long,
        value_name = "MS",
        allow_negative_numbers = true,
        value_parser = crate::cmd::serve::parse_ms
    )]
    pub move_time_ms: Option<u64>,
    /// Nodes each engine may search per action. Without --move-time-ms there is then no time
    /// limit, and a match repeats exactly.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_move_nodes)]
    pub move_nodes: Option<u64>,
    /// Threads of each engine's exact search [default: 1, so that a match repeats and neither
    /// engine takes cores from the other].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = crate::cmd::egdb::parse_threads)]
    pub threads: Option<usize>,
    /// Directory of the endgame databases the engines use [default: the per-user database
    /// root, ~/.local/share/kalah/egdb on Linux, if it exists].
    #[arg(long, value_name = "DIR")]
    pub egdb_dir: Option<std::path::PathBuf>,
    /// Do not use endgame databases even if present.
    #[arg(long, conflicts_with = "egdb_dir")]
    pub no_egdb: bool,
    /// One JSON object at the end instead of the text lines.
    #[arg(long)]
    pub json: bool,
}

/// Most plies of `--opening-plies`.
const MAX_OPENING_PLIES: u64 = 20;

/// Random openings drawn before one with fewer plies is tried, when the game keeps ending
/// within the opening.
const OPENING_TRIES: usize = 100;

fn parse_games(s: &str) -> Result<u64, String> {
    crate::game_args::whole_number(s, 1, u32::MAX.into(), "games")
}

fn parse_opening_plies(s: &str) -> Result<usize, String> {
    crate::game_args::whole_number(s, 0, MAX_OPENING_PLIES, "plies").map(|n| n as usize)
}

/// A seed for stream `stream` (0: openings; 1 and 2: the engines starting South and North) and
/// index `index` (the pair, or the game) of a match of seed `seed`.
fn derive_seed(seed: u64, stream: u64, index: u64) -> u64 {
    kalah_engine::derive_seed(kalah_engine::derive_seed(seed, stream), index)
}

/// The generator of the openings: the same seed gives the same openings (with this build's
/// `rand`).
type Openings = StdRng;

/// `plies` random legal actions from `start` after which the game goes on. A draw whose game
/// ends within the opening is drawn again, up to [`OPENING_TRIES`] times; then one ply fewer is
/// tried, and so on (no opening at all if need be).
fn opening(start: &Position, rules: &Rules, plies: usize, rng: &mut Openings) -> Vec<Move> {
    for k in (1..=plies).rev() {
        for _ in 0..OPENING_TRIES {
            let mut pos = *start;
            let mut moves = Vec::with_capacity(k);
            while moves.len() < k {
                let legal = pos.legal_moves(rules);
                if legal.is_empty() {
                    break;
                }
                let mv = legal[rng.gen_range(0..legal.len())];
                pos.play_unchecked(rules, mv);
                moves.push(mv);
            }
            if moves.len() == k && !pos.legal_moves(rules).is_empty() {
                return moves;
            }
        }
    }
    Vec::new()
}

/// Actions as single plies, `2 5 swap`.
fn plies_text(moves: &[Move]) -> String {
    moves
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// One finished game.
struct GameResult {
    /// 1-based.
    number: u64,
    /// Whether A started as South.
    a_south: bool,
    opening: Vec<Move>,
    /// Every action, the opening's included.
    moves: Vec<Move>,
    /// Final stores `[south, north]` of the board.
    stores: [u8; 2],
    /// Whether a pie-rule swap was played: the player who started North then owns South's
    /// store.
    swapped: bool,
}

impl GameResult {
    /// The side A started on.
    fn a_side(&self) -> Side {
        if self.a_south {
            Side::South
        } else {
            Side::North
        }
    }

    /// The board side whose store belongs to the player who started on `side`.
    fn store_side(&self, side: Side) -> Side {
        if self.swapped {
            side.opposite()
        } else {
            side
        }
    }

    /// A's final store minus B's.
    fn a_diff(&self) -> i32 {
        let a = self.store_side(self.a_side());
        i32::from(self.stores[a.index()]) - i32::from(self.stores[a.opposite().index()])
    }

    /// The winner, named by the side he started on; `None` for a draw.
    fn winner(&self) -> Option<Side> {
        let d = self.a_diff();
        let a = self.a_side();
        match d.cmp(&0) {
            std::cmp::Ordering::Greater => Some(a),
            std::cmp::Ordering::Less => Some(a.opposite()),
            std::cmp::Ordering::Equal => None,
        }
    }

    /// A's points: 1 for a win, ½ for a draw.
    fn a_points(&self) -> f64 {
        match self.a_diff().cmp(&0) {
            std::cmp::Ordering::Greater => 1.0,
            std::cmp::Ordering::Less => 0.0,
            std::cmp::Ordering::Equal => 0.5,
        }
    }
}

/// What every game of a match shares.
struct Match {
    a: Level,
    b: Level,
    rules: Rules,
    start: Position,
    seed: u64,
    opening_plies: usize,
    limits: Limits,
    /// `--move-time-ms`, as given.
    move_time_ms: Option<u64>,
    threads: usize,
    egdb: Option<Arc<Egdb>>,
    stop: Arc<AtomicBool>,
}

impl Match {
    /// A player's name in the text: the level, with `A` or `B` after it when both levels are
    /// the same.
    fn name(&self, a: bool) -> String {
        let level = if a { self.a } else { self.b };
        if self.a == self.b {
            format!("{level} {}", if a { "A" } else { "B" })
        } else {
            level.to_string()
        }
    }

    /// A player's name with `(A)` or `(B)` after it, unless [`Match::name`] already says
    /// which.
    fn tagged(&self, a: bool) -> String {
        if self.a == self.b {
            self.name(a)
        } else {
            format!("{} ({})", self.name(a), if a { "A" } else { "B" })
        }
    }

    /// The engine of `level` for the player starting on `side` in game `number`.
    fn engine(&self, level: Level, number: u64, side: Side) -> Engine {
        let stream = 1 + side.index() as u64;
        let mut e = Engine::with_seed(level, derive_seed(self.seed, stream, number));
        e.set_egdb(self.egdb.clone());
        e.set_threads(self.threads);
        e.set_stop_flag(Arc::clone(&self.stop));
        e
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Plays game `number` (1-based) after `opening`; `None` if Ctrl-C stopped it.
    fn play(&self, number: u64, opening: &[Move]) -> Result<Option<GameResult>> {
        let a_south = number % 2 == 1;
        let (south, north) = if a_south {
            (self.a, self.b)
        } else {
            (self.b, self.a)
        };
        // Indexed by the side each player started on.
        let mut engines = [
            self.engine(south, number, Side::South),
            self.engine(north, number, Side::North),
        ];
        let rules = &self.rules;
        let mut pos = self.start;
        pos.settle(rules);
        let mut moves = Vec::new();
        let mut swapped = false;
        for &mv in opening {
            pos.play(rules, mv)
                .with_context(|| format!("the opening's action {mv} is illegal in {pos}"))?;
            swapped |= mv == Move::Swap;
            moves.push(mv);
        }
        while !pos.legal_moves(rules).is_empty() {
            if self.stopped() {
                return Ok(None);
            }
            let player = if swapped {
                pos.side().opposite()
            } else {
                pos.side()
            };
            let engine = &mut engines[player.index()];
            let level = engine.level();
            let choice = engine
                .choose_with(&pos, rules, self.limits)
                .with_context(|| {
                    format!(
                        "game {number}: the engine ({level}) found no action in {pos}, which has \
                         legal actions"
                    )
                })?;
            if self.stopped() {
                return Ok(None);
            }
            if let Err(e) = pos.play(rules, choice.mv) {
                bail!(
                    "game {number}: the engine ({level}) chose an illegal action {} in {pos}: {e}",
                    choice.mv
                );
            }
            swapped |= choice.mv == Move::Swap;
            moves.push(choice.mv);
        }
        let stores = pos
            .score(rules)
            .with_context(|| format!("game {number}: no final score in {pos}"))?;
        Ok(Some(GameResult {
            number,
            a_south,
            opening: opening.to_vec(),
            moves,
            stores,
            swapped,
        }))
    }

    /// The text line of a finished game: `game 3: expert (South) 30 – 18 medium (North):
    /// expert wins by 12; opening 2 5`.
    fn game_line(&self, g: &GameResult) -> String {
        // The players by the board side whose store they own at the end.
        let south_owner_is_a = g.store_side(g.a_side()) == Side::South;
        let south = self.name(south_owner_is_a);
        let north = self.name(!south_owner_is_a);
        let [s, n] = g.stores;
        let verdict = match g.a_diff() {
            0 => "a draw".to_string(),
            d if d > 0 => format!("{} wins by {d}", self.name(true)),
            d => format!("{} wins by {}", self.name(false), -d),
        };
        let mut line = format!(
            "game {}: {south} (South) {s} – {n} {north} (North): {verdict}",
            g.number
        );
        if !g.opening.is_empty() {
            line.push_str(&format!("; opening {}", plies_text(&g.opening)));
        }
        if g.swapped {
            line.push_str(&format!(
                "; swapped ({} started as South)",
                self.name(g.a_south)
            ));
        }
        line
    }

    /// The running score for the progress bar: `expert 2.5 – 1.5 medium`.
    fn score_text(&self, t: &Tally) -> String {
        format!(
            "{} {} – {} {}",
            self.name(true),
            t.points,
            t.games as f64 - t.points,
            self.name(false)
        )
    }
}

/// Wins, draws and losses of A over some games.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    games: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    points: f64,
    diff_sum: i64,
}

impl Tally {
    fn add(&mut self, g: &GameResult) {
        self.games += 1;
        match g.a_diff().cmp(&0) {
            std::cmp::Ordering::Greater => self.wins += 1,
            std::cmp::Ordering::Equal => self.draws += 1,
            std::cmp::Ordering::Less => self.losses += 1,
        }
        self.points += g.a_points();
        self.diff_sum += i64::from(g.a_diff());
    }

    fn mean_diff(&self) -> Option<f64> {
        (self.games > 0).then(|| self.diff_sum as f64 / self.games as f64)
    }

    fn percent(&self) -> Option<f64> {
        (self.games > 0).then(|| 100.0 * self.points / self.games as f64)
    }

    fn json(&self) -> TallyJson {
        TallyJson {
            games: self.games,
            a_wins: self.wins,
            draws: self.draws,
            b_wins: self.losses,
            a_points: self.points,
            a_mean_diff: self.mean_diff(),
        }
    }

    /// `2 games, 1 win, 1 draw, 0 losses, 1.5 points (75.0 %), mean store difference +4.50`.
    fn text(&self) -> String {
        let mut s = format!(
            "{}, {}, {}, {}, {} point{}",
            plural(self.games, "game", "games"),
            plural(self.wins, "win", "wins"),
            plural(self.draws, "draw", "draws"),
            plural(self.losses, "loss", "losses"),
            self.points,
            if self.points == 1.0 { "" } else { "s" }
        );
        if let (Some(pct), Some(mean)) = (self.percent(), self.mean_diff()) {
            s.push_str(&format!(
                " ({pct:.1} %), mean store difference {}",
                signed_mean(mean)
            ));
        }
        s
    }
}

/// How the pairs whose two games were both played went for A.
#[derive(Clone, Copy, Debug, Default)]
struct Pairs {
    played: u64,
    won_both: u64,
    split: u64,
    lost_both: u64,
}

impl Pairs {
    /// Counts the pair of games whose A store differences are `first` and `second`.
    fn add(&mut self, first: i32, second: i32) {
        self.played += 1;
        if first > 0 && second > 0 {
            self.won_both += 1;
        } else if first < 0 && second < 0 {
            self.lost_both += 1;
        } else {
            self.split += 1;
        }
    }
}

/// What the summary needs of the games played so far, counted as they end: a long match in
/// text mode keeps no game (a match of 4 294 967 295 games must not grow); `--json`, which
/// lists every game at the end, keeps them in `games`.
struct Totals {
    all: Tally,
    as_south: Tally,
    as_north: Tally,
    pairs: Pairs,
    /// A's store difference in the first game of a pair whose second game is not played yet.
    pending: Option<i32>,
    /// Every game, with `--json` only.
    games: Option<Vec<GameResult>>,
}

impl Totals {
    fn new(keep_games: bool) -> Totals {
        Totals {
            all: Tally::default(),
            as_south: Tally::default(),
            as_north: Tally::default(),
            pairs: Pairs::default(),
            pending: None,
            games: keep_games.then(Vec::new),
        }
    }

    fn add(&mut self, g: GameResult) {
        self.all.add(&g);
        if g.a_south {
            self.as_south.add(&g);
        } else {
            self.as_north.add(&g);
        }
        // Games 1 and 2 are a pair, 3 and 4, and so on.
        if g.number % 2 == 1 {
            self.pending = Some(g.a_diff());
        } else if let Some(first) = self.pending.take() {
            self.pairs.add(first, g.a_diff());
        }
        if let Some(games) = &mut self.games {
            games.push(g);
        }
    }

    /// Games finished.
    fn played(&self) -> u64 {
        self.all.games
    }
}

/// `+1.25`, `-0.50`; a mean that rounds to zero is `+0.00`, whatever its sign (`-0.00` read
/// as a loss).
fn signed_mean(mean: f64) -> String {
    let text = format!("{mean:+.2}");
    if text == "-0.00" {
        "+0.00".to_string()
    } else {
        text
    }
}

/// `"south"` or `"north"`.
fn side_word(side: Side) -> &'static str {
    match side {
        Side::South => "south",
        Side::North => "north",
    }
}

/// One game of `--json` (keys in this order).
#[derive(Serialize)]
struct GameJson {
    game: u64,
    south: Level,
    north: Level,
    a_side: &'static str,
    opening: String,
    south_store: u8,
    north_store: u8,
    swapped: bool,
    moves: String,
    result: &'static str,
}

/// A's results over some games, in `--json`.
#[derive(Serialize)]
struct TallyJson {
    games: u64,
    a_wins: u64,
    draws: u64,
    b_wins: u64,
    a_points: f64,
    a_mean_diff: Option<f64>,
}

/// The pairs of `--json`.
#[derive(Serialize)]
struct PairsJson {
    played: u64,
    a_won_both: u64,
    split: u64,
    a_lost_both: u64,
}

/// The object `--json` prints.
#[derive(Serialize)]
struct MatchJson {
    a: Level,
    b: Level,
    rules: Rules,
    start: String,
    seed: u64,
    opening_plies: usize,
    move_time_ms: Option<u64>,
    move_nodes: Option<u64>,
    threads: usize,
    games_requested: u64,
    games: Vec<GameJson>,
    a_wins: u64,
    draws: u64,
    b_wins: u64,
    a_points: f64,
    a_mean_diff: Option<f64>,
    a_as_south: TallyJson,
    a_as_north: TallyJson,
    pairs: PairsJson,
    interrupted: bool,
}

/// Prints the summary of the games played, as text or JSON.
fn summary(m: &Match, totals: &Totals, requested: u64) -> Result<()> {
    let (all, as_south, as_north, pairs) =
        (totals.all, totals.as_south, totals.as_north, totals.pairs);
    let interrupted = totals.played() < requested;
    if let Some(results) = &totals.games {
        let games = results
            .iter()
            .map(|g| {
                let (south, north) = if g.a_south { (m.a, m.b) } else { (m.b, m.a) };
                GameJson {
                    game: g.number,
                    south,
                    north,
                    a_side: side_word(g.a_side()),
                    opening: plies_text(&g.opening),
                    south_store: g.stores[0],
                    north_store: g.stores[1],
                    swapped: g.swapped,
                    moves: crate::cmd::solve::turns_text(&m.start, &m.rules, &g.moves),
                    result: g.winner().map_or("draw", side_word),
                }
            })
            .collect();
        let v = MatchJson {
            a: m.a,
            b: m.b,
            rules: m.rules,
            start: m.start.to_string(),
            seed: m.seed,
            opening_plies: m.opening_plies,
            move_time_ms: m.move_time_ms,
            move_nodes: m.limits.nodes,
            threads: m.threads,
            games_requested: requested,
            games,
            a_wins: all.wins,
            draws: all.draws,
            b_wins: all.losses,
            a_points: all.points,
            a_mean_diff: all.mean_diff(),
            a_as_south: as_south.json(),
            a_as_north: as_north.json(),
            pairs: PairsJson {
                played: pairs.played,
                a_won_both: pairs.won_both,
                split: pairs.split,
                a_lost_both: pairs.lost_both,
            },
            interrupted,
        };
        return print(&format!("{}\n", serde_json::to_string(&v)?));
    }
    let a = m.name(true);
    let mut text = String::new();
    text.push_str(&if interrupted {
        format!(
            "\nmatch interrupted: {} of {requested} games finished\n",
            totals.played()
        )
    } else {
        format!(
            "\nmatch over: {}\n",
            plural(totals.played(), "game", "games")
        )
    });
    text.push_str(&format!(
        "{} {} win{}, {} draw{}, {} {} win{}\n",
        m.tagged(true),
        all.wins,
        if all.wins == 1 { "" } else { "s" },
        all.draws,
        if all.draws == 1 { "" } else { "s" },
        m.tagged(false),
        all.losses,
        if all.losses == 1 { "" } else { "s" },
    ));
    if let (Some(pct), Some(mean)) = (all.percent(), all.mean_diff()) {
        text.push_str(&format!(
            "{a} scores {} of {} points ({pct:.1} %); mean store difference {}\n",
            all.points,
            all.games,
            signed_mean(mean)
        ));
    }
    text.push_str(&format!("{a} as South: {}\n", as_south.text()));
    text.push_str(&format!("{a} as North: {}\n", as_north.text()));
    if pairs.played > 0 {
        text.push_str(&format!(
            "pairs played both ways: {}; {a} won both {}, split {}, lost both {}\n",
            pairs.played, pairs.won_both, pairs.split, pairs.lost_both
        ));
    }
    print(&text)
}

/// The progress bar on stderr: drawn only when stderr is a terminal (indicatif's stderr
/// target stays hidden otherwise, as for `egdb build`).
fn progress_bar(games: u64) -> ProgressBar {
    let bar = crate::output::progress_bar(games);
    bar.set_style(
        ProgressStyle::with_template("{elapsed} [{bar:20}] {pos}/{len} games  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    if !bar.is_hidden() {
        bar.enable_steady_tick(Duration::from_millis(200));
    }
    bar
}

/// The note for a match whose pairs of games are likely all alike (tester 77: `hard` against
/// `medium`, 10 games, gave five identical pairs and "100.0 %"): two levels without randomness
/// ([`Level::is_random`]), no random opening, more than one pair. `None` otherwise.
fn repeats_note(a: Level, b: Level, games: u64, opening_plies: usize) -> Option<String> {
    if games <= 2 || opening_plies > 0 || a.is_random() || b.is_random() {
        return None;
    }
    let levels = if a == b {
        format!("{a} chooses")
    } else {
        format!("{a} and {b} choose")
    };
    Some(format!(
        "{levels} without randomness and every pair starts from the same position \
         (--opening-plies 0), so the pairs of games are likely all alike; --opening-plies 4 (say) \
         gives each pair its own random opening"
    ))
}

/// Runs `kalah match`.
pub fn run(args: Args) -> Result<()> {
    let rules = args.rules.rules();
    let start = args.rules.start_position()?;
    let egdb = if args.no_egdb {
        None
    } else {
        super::solve::open_egdb_dir(args.egdb_dir.as_deref(), start.houses(), &rules)?.map(Arc::new)
    };
    // One thread unless asked: on several threads the exact search's choice among equally good
    // actions varies from run to run, and two engines taking turns need no more.
    let threads = match args.threads {
        None => 1,
        requested => crate::cmd::egdb::threads_for(requested),
    };
    let stop = Arc::new(AtomicBool::new(false));
    crate::cmd::solve::stop_on_ctrl_c(Arc::clone(&stop));
    let m = Match {
        a: args.a,
        b: args.b,
        rules,
        start,
        seed: args.seed,
        opening_plies: args.opening_plies,
        limits: engine_limits(args.move_time_ms, args.move_nodes),
        move_time_ms: args.move_time_ms,
        threads,
        egdb,
        stop,
    };
    let mut settled = start;
    settled.settle(&rules);
    if let Some(note) = repeats_note(args.a, args.b, args.games, args.opening_plies) {
        stderr_line!("kalah: note: {note}");
    }
    if !args.json {
        let mut intro = format!(
            "match: {} against {}, {} game{} from {start}\n",
            m.tagged(true),
            m.tagged(false),
            args.games,
            if args.games == 1 { "" } else { "s" }
        );
        if rules != Rules::default() {
            intro.push_str(&format!("Rules: {rules}\n"));
        }
        print(&intro)?;
    }
    let bar = progress_bar(args.games);
    let mut totals = Totals::new(args.json);
    bar.set_message(m.score_text(&totals.all));
    let mut current_opening = Vec::new();
    for number in 1..=args.games {
        if number % 2 == 1 {
            let pair = (number - 1) / 2;
            let mut rng = Openings::seed_from_u64(derive_seed(m.seed, 0, pair));
            current_opening = opening(&settled, &rules, m.opening_plies, &mut rng);
        }
        let Some(game) = m.play(number, &current_opening)? else {
            break;
        };
        let line = (!args.json).then(|| m.game_line(&game));
        totals.add(game);
        if let Some(line) = line {
            if let Err(e) = bar.suspend(|| print(&format!("{line}\n"))) {
                bar.finish_and_clear();
                // `main` says that the output was closed; a match adds how far it got.
                return Err(e.context(crate::output::WhenClosed(format!(
                    "the match stopped after {} of {} games",
                    totals.played(),
                    args.games
                ))));
            }
        }
        bar.set_message(m.score_text(&totals.all));
        bar.inc(1);
        if m.stopped() {
            break;
        }
    }
    bar.finish_and_clear();
    super::solve::warn_if_damaged(m.egdb.as_deref());
    summary(&m, &totals, args.games)?;
    if totals.played() < args.games {
        stderr_line!(
            "kalah: match {} after {} of {} games; the game under way was dropped",
            crate::signals::stopped_by(),
            totals.played(),
            args.games
        );
        std::process::exit(crate::signals::exit_code());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kalah_core::Start;

    /// A game numbered `number` in which A (South in odd games) ends with store difference `d`.
    fn game(number: u64, d: i32) -> GameResult {
        let a_south = number % 2 == 1;
        let (a, b) = (24 + d / 2, 24 - d / 2);
        let (a, b) = (a as u8, b as u8);
        GameResult {
            number,
            a_south,
            opening: Vec::new(),
            moves: Vec::new(),
            stores: if a_south { [a, b] } else { [b, a] },
            swapped: false,
        }
    }

    #[test]
    fn totals_count_pairs_as_the_games_end_and_keep_games_only_for_json() {
        let diffs = [4, 2, -2, -6, 2, -2, 0, 0, 8];
        let mut text = Totals::new(false);
        let mut json = Totals::new(true);
        for (i, &d) in diffs.iter().enumerate() {
            text.add(game(i as u64 + 1, d));
            json.add(game(i as u64 + 1, d));
        }
        assert!(text.games.is_none());
        assert_eq!(json.games.as_ref().map(Vec::len), Some(9));
        // Pairs (4, 2) won both, (-2, -6) lost both, (2, -2) and (0, 0) split; game 9 waits.
        for t in [&text, &json] {
            assert_eq!(t.played(), 9);
            assert_eq!(
                (
                    t.pairs.played,
                    t.pairs.won_both,
                    t.pairs.split,
                    t.pairs.lost_both
                ),
                (4, 1, 2, 1)
            );
            assert_eq!((t.all.wins, t.all.draws, t.all.losses), (4, 2, 3));
            assert_eq!((t.as_south.games, t.as_north.games), (5, 4));
            assert_eq!(t.all.diff_sum, 6);
        }
    }

    #[test]
    fn a_mean_that_rounds_to_zero_has_no_minus_sign() {
        assert_eq!(signed_mean(-0.0018), "+0.00");
        assert_eq!(signed_mean(0.0), "+0.00");
        assert_eq!(signed_mean(-0.005001), "-0.01");
        assert_eq!(signed_mean(1.25), "+1.25");
        assert_eq!(signed_mean(-0.5), "-0.50");
    }

    #[test]
    fn openings_repeat_and_leave_the_game_going() {
        let rules = Rules::default();
        let start = Position::start(&Start::uniform(3, 2).unwrap(), &rules);
        for pair in 0..20 {
            let a = opening(
                &start,
                &rules,
                6,
                &mut Openings::seed_from_u64(derive_seed(7, 0, pair)),
            );
            let b = opening(
                &start,
                &rules,
                6,
                &mut Openings::seed_from_u64(derive_seed(7, 0, pair)),
            );
            assert_eq!(a, b);
            assert!(a.len() <= 6);
            let mut pos = start;
            for &mv in &a {
                pos.play(&rules, mv).unwrap();
            }
            assert!(!pos.legal_moves(&rules).is_empty(), "{pos}");
        }
    }

    #[test]
    fn an_opening_longer_than_any_game_gets_shorter() {
        // Kalah(1,1): South sows into its store and the game ends at once (South's row empty).
        let rules = Rules::default();
        let start = Position::start(&Start::uniform(1, 1).unwrap(), &rules);
        let moves = opening(&start, &rules, 20, &mut Openings::seed_from_u64(1));
        assert!(moves.is_empty(), "{moves:?}");
    }

    #[test]
    fn derived_seeds_differ_by_stream_and_index() {
        let s = [
            derive_seed(0, 0, 0),
            derive_seed(0, 0, 1),
            derive_seed(0, 1, 0),
            derive_seed(0, 2, 0),
            derive_seed(1, 0, 0),
        ];
        for i in 0..s.len() {
            for j in i + 1..s.len() {
                assert_ne!(s[i], s[j]);
            }
        }
    }
}
