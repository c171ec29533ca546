// The Kalah page: game flow, engine turns, hints, value graph, history, analysis board, records.
// All rules work is done by the server through the stateless JSON API; the page keeps the game
// as {rules, start position, moves} and stores it in localStorage so it survives a reload.

import { post, info, EngineQueue, ApiError, FOREGROUND } from './api.js';
import { drawBoard, setPit, showPit, sideName, other, binName, storeOf } from './board.js';
import { drawGraph } from './graph.js';

const STORE_KEY = 'kalah.game.v1';
// The cache of values found for the game, in its own localStorage entry ({game: `valuesGame`,
// values}), shared by the tabs: a tab that found a value writes that entry, never the game, so
// it cannot write its game over a move another tab has just played (a browser test failed so in
// CI: the idle tab's value saves stopped the tab that moved). Older saves kept the cache in the
// game's entry; it is still read from there.
const VALUES_KEY = 'kalah.values.v1';
// This tab's analysis board, in sessionStorage: each tab has its own, kept over a reload (in
// the game's localStorage entry the last tab to save won, tester 58).
const ANALYSIS_KEY = 'kalah.analysis.v1';
const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const signed = (v) => (v > 0 ? `+${v}` : `${v}`);
const SPEED = { slow: 320, normal: 140, fast: 50, instant: 0 };
const STANDARD_RULES = {
  capture: 'standard', end: 'row-empty', leftovers: 'owner',
  'majority-end': false, pie: false, 'first-move-extra-turn': true,
};

const queue = new EngineQueue();
let levels = ['beginner', 'easy', 'medium', 'hard', 'expert', 'perfect'];
// The most seeds a board may hold (GET /api/info's max_seeds): a house of m houses a side holds
// at most max_seeds / 2m at the start.
let maxSeeds = 255;

// Saved state (localStorage).
let S = null;
// The replayed game from /api/game: {start, steps, turns, state, rules_text}.
let G = null;
let busy = false; // animating or waiting for the engine
let generation = 0; // bumps on every new game/import, to drop stale answers
let lastEvent = '';
// Whether `lastEvent` reports a failure (a move not played, the engine failing): a later hint
// failure does not replace it (tester 53).
let eventIsError = false;
/** Sets the event line's text (shown at the next render); `error` marks a failure. */
function setEvent(text, error = false) {
  lastEvent = text;
  eventIsError = error;
}
// The engine's failed attempt to move, {gen, cursor, moves, message}: the page waits for the
// Retry button (or another position) instead of asking again at once, which would repeat the
// failure in a loop (a stopped server, a refused request). It is the failure of that very game
// (its moves): another line of as many moves asks the engine (tester 105: Undo and another move
// said at once that the engine could not move).
let stalled = null;

function defaultState() {
  return {
    v: 1,
    rules: { ...STANDARD_RULES },
    board: { kind: 'uniform', houses: 6, seeds: 4, layout: '', mirrored: false },
    opponent: 'engine', level: 'medium', time: 1000, humanSide: 'S',
    speed: 'normal', hintTime: 500, hints: false,
    // Whether the single-key shortcuts (1–9, 0, -, =, U, R, H, N, A) work: they can be turned
    // off (WCAG 2.1.4), for a speech-input user whose words would type them.
    shortcuts: true,
    start: null, moves: [], cursor: 0,
    values: {}, // position string -> {v (South's view), exact, moves: [{move, value, exact}], value}
    analysis: null, // {pits: [...], toMove}
    // What the record this game was loaded from had beyond the game, written back on export:
    // {names: {south, north} (null if they named a person against the engine), tags: [[name,
    // value], ...], comments: [[turns before it, text], ...]}; null for a game begun here.
    record: null,
    // The lines a move in the history or "Play on from here" dropped, while they can be
    // brought back (`restoreDropped`), the most recent last (at most `KEPT_LINES`): each
    // {moves (that whole line), cursor (where it parts from the game: both have the same moves
    // before it), note (the words that say what was dropped), count (its turns from there),
    // comments (the record's comments of that line, if the game is a record's)}.
    // The last is the one offered (`offeredLine`). Kept with the game, so a reload keeps them
    // too.
    dropped: [],
  };
}

/** `saved` (from localStorage, any JSON) as a state: every field checked, a bad one replaced by
 * its default, so that a damaged or outdated entry cannot break the page. */
function sanitize(saved) {
  const d = defaultState();
  if (!saved || typeof saved !== 'object' || saved.v !== 1) return d;
  const pick = (v, ok, def) => (ok(v) ? v : def);
  const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const whole = (lo, hi) => (v) => Number.isInteger(v) && v >= lo && v <= hi;
  const oneOf = (...xs) => (v) => xs.includes(v);
  const r = isObj(saved.rules) ? saved.rules : {};
  const rules = {
    capture: pick(r.capture, oneOf('standard', 'empty'), d.rules.capture),
    end: pick(r.end, oneOf('row-empty', 'mover-blocked'), d.rules.end),
    leftovers: pick(r.leftovers, oneOf('owner', 'emptier', 'nobody'), d.rules.leftovers),
    'majority-end': pick(r['majority-end'], oneOf(true, false), false),
    pie: pick(r.pie, oneOf(true, false), false),
    'first-move-extra-turn': pick(r['first-move-extra-turn'], oneOf(true, false), true),
  };
  const b = isObj(saved.board) ? saved.board : {};
  const board = {
    kind: pick(b.kind, oneOf('uniform', 'layout'), 'uniform'),
    houses: pick(b.houses, whole(1, 12), d.board.houses),
    seeds: pick(b.seeds, whole(1, 255), d.board.seeds),
    layout: pick(b.layout, (v) => typeof v === 'string', ''),
    mirrored: pick(b.mirrored, oneOf(true, false), false),
  };
  if (board.kind === 'layout' && !board.layout) board.kind = 'uniform';
  // One action each, as the page stores them (a house number or swap): a whole turn ("3-6")
  // would replay into more steps than moves.
  const moves = Array.isArray(saved.moves) && saved.moves.every((m) => typeof m === 'string' && /^([1-9]\d*|swap)$/.test(m))
    ? saved.moves : [];
  const start = typeof saved.start === 'string' && saved.start ? saved.start : null;
  return {
    ...d,
    rules,
    board,
    opponent: pick(saved.opponent, oneOf('engine', 'human'), d.opponent),
    level: pick(saved.level, (v) => levels.includes(v), d.level),
    // The times the page offers (its selects show no other).
    time: pick(saved.time, oneOf(300, 1000, 3000, 10000), d.time),
    humanSide: pick(saved.humanSide, oneOf('S', 'N'), d.humanSide),
    speed: pick(saved.speed, (v) => typeof v === 'string' && Object.hasOwn(SPEED, v), d.speed),
    hintTime: pick(saved.hintTime, oneOf(200, 500, 2000, 5000), d.hintTime),
    hints: pick(saved.hints, oneOf(true, false), false),
    shortcuts: pick(saved.shortcuts, oneOf(true, false), true),
    start,
    moves: start ? moves : [],
    cursor: start ? pick(saved.cursor, whole(0, moves.length), moves.length) : 0,
    values: goodValues(saved.values, isObj),
    analysis: null, // (this tab's own: `storedAnalysis`)
    record: start ? goodRecord(saved.record, isObj) : null,
    dropped: start ? goodDroppedLines(saved.dropped, isObj) : [],
  };
}

/** The most dropped lines kept (`S.dropped`). */
const KEPT_LINES = 10;

/** A saved dropped line if it has the shape the page stores; else null. */
function goodDropped(d, isObj) {
  if (!isObj(d) || !Array.isArray(d.moves) || !d.moves.every((m) => typeof m === 'string' && /^([1-9]\d*|swap)$/.test(m))) return null;
  const { cursor, note, count } = d;
  const ok = Number.isInteger(cursor) && cursor >= 0 && cursor < d.moves.length
    && typeof note === 'string' && Number.isInteger(count) && count >= 1 && count <= d.moves.length - cursor;
  if (!ok) return null;
  const line = { moves: d.moves, cursor, note, count };
  if (Array.isArray(d.comments) && d.comments.every(goodComment)) line.comments = d.comments;
  return line;
}

/** The saved dropped lines (`S.dropped`) that have the shape the page stores, the last
 * `KEPT_LINES`. An older save kept one line, not a list. */
function goodDroppedLines(saved, isObj) {
  const list = Array.isArray(saved) ? saved : saved ? [saved] : [];
  return list.map((d) => goodDropped(d, isObj)).filter(Boolean).slice(-KEPT_LINES);
}

/** Whether the dropped line `d` parts from the game `moves` where it says: it has the same
 * moves before its cursor, a position of the game's history. */
const partsFrom = (d, moves) => d.cursor <= moves.length && d.moves.slice(0, d.cursor).every((m, i) => moves[i] === m);

/** Where in `lines` (dropped lines, the most recent last) is the one "Bring back" offers for
 * the game `moves`: the most recent that parts from it (`partsFrom`); -1 if none. A line that
 * does not part from the game shown is kept, not dropped: bringing back another line may make it
 * part from the game again (tester 105: one was lost for good so, though it applied again one
 * press later). Only a new game or a loaded record clears them. */
function offeredIndex(lines, moves) {
  for (let i = lines.length - 1; i >= 0; i--) if (partsFrom(lines[i], moves)) return i;
  return -1;
}

/** Whether two lists of moves are the same. */
const sameMoves = (a, b) => a.length === b.length && a.every((m, i) => b[i] === m);

/** `lines` (dropped lines) with `line` on top, the most recent: another line of the same moves
 * is left out (the newer note stands), and so are those past `KEPT_LINES`, the oldest first. */
function withDropped(lines, line) {
  return [...lines.filter((d) => !sameMoves(d.moves, line.moves)), line].slice(-KEPT_LINES);
}

/** The record of the game (`S.record`) once its moves `old`, of the turns `turns`, become
 * `moves`: with only the comments after a turn still played as it was (its actions and those
 * before it the same); the others stay with the line dropped (`lineComments`). A comment of a
 * turn no longer played followed the new turn of that number (tester: "# a good start" after
 * another first turn). */
function recordFor(turns, old, moves) {
  if (!S.record) return S.record;
  let same = 0;
  while (same < old.length && same < moves.length && old[same] === moves[same]) same++;
  const comments = S.record.comments.filter(([k]) => {
    if (k === 0) return true;
    const t = turns.find((x) => x.number === k) ?? turns[turns.length - 1];
    return !!t && turnEnd(t) <= same;
  });
  return { ...S.record, comments };
}

/** The record's comments (`S.record`) of the game as it is, kept with it when it is dropped
 * (and brought back with it); none for a game begun here. */
const lineComments = () => (S.record ? { comments: S.record.comments } : {});

/** `a` (from sessionStorage, any JSON) as an analysis board: {pits, toMove, phase, result},
 * or null if it is not one. */
function goodAnalysis(a) {
  const ok = a !== null && typeof a === 'object' && Array.isArray(a.pits)
    && a.pits.every((v) => Number.isInteger(v) && v >= 0 && v <= 255)
    && a.pits.length >= 4 && a.pits.length <= 26 && a.pits.length % 2 === 0 && ['S', 'N'].includes(a.toMove);
  if (!ok) return null;
  return { pits: a.pits, toMove: a.toMove, phase: PHASES.includes(a.phase) ? a.phase : null, result: null };
}

/** This tab's analysis board as it saved it (`saveAnalysis`), or null. */
function storedAnalysis() {
  try {
    return goodAnalysis(JSON.parse(sessionStorage.getItem(ANALYSIS_KEY) || 'null'));
  } catch {
    return null;
  }
}

/** Writes this tab's analysis board to sessionStorage, or removes it there once closed. */
function saveAnalysis() {
  try {
    const a = S.analysis;
    if (a) sessionStorage.setItem(ANALYSIS_KEY, JSON.stringify({ pits: a.pits, toMove: a.toMove, phase: a.phase }));
    else sessionStorage.removeItem(ANALYSIS_KEY);
  } catch {
    // A browser that refuses: the board is not kept over a reload, the game still is.
  }
}

/** A saved record's players, tags and comments, if they have the shape `importRecord` stores
 * (comments may be missing: a game saved before they were kept). */
function goodRecord(r, isObj) {
  const str = (v) => typeof v === 'string';
  const pair = (t) => Array.isArray(t) && t.length === 2 && t.every(str);
  if (!isObj(r) || !Array.isArray(r.tags) || !r.tags.every(pair)) return null;
  const comments = r.comments ?? [];
  if (!Array.isArray(comments) || !comments.every(goodComment)) return null;
  const n = r.names;
  if (n === null) return { names: null, tags: r.tags, comments };
  return isObj(n) && str(n.south) && str(n.north)
    ? { names: { south: n.south, north: n.north }, tags: r.tags, comments }
    : null;
}

/** Whether `c` is a record's comment as the page stores it: [turns before it, text]. */
const goodComment = (c) => Array.isArray(c) && c.length === 2 && Number.isInteger(c[0]) && c[0] >= 0 && typeof c[1] === 'string';

/** The entries of a saved value cache that have the shape `requestValue` stores. */
function goodValues(values, isObj) {
  const out = {};
  if (!isObj(values)) return out;
  // A value is a store difference: at most the board's seeds either way (a damaged entry
  // showed hints of +1e300, tester 65).
  const value = (v) => Number.isInteger(v) && Math.abs(v) <= maxSeeds;
  for (const [pos, e] of Object.entries(values)) {
    const num = (v) => v === null || value(v);
    if (isObj(e) && num(e.v) && num(e.value) && typeof e.exact === 'boolean' && Array.isArray(e.moves)
      && e.moves.every((m) => isObj(m) && typeof m.move === 'string' && value(m.value)
        && (m.exact === undefined || typeof m.exact === 'boolean'))) {
      out[pos] = e;
    }
  }
  return out;
}

// The move being sown (`applyMove`): {gen, game: the moves and cursor with it}, or null. Saved
// in place of the game's own, so that a reload during the sowing keeps the move (tester 53),
// whatever else saves meanwhile (a value found for the graph).
let sowing = null;
// Why the game could not be saved last time (shown under the board), or ''.
let saveTrouble = '';
// Whether another tab of this page changed the saved game: this tab then stops (no moves, no
// saves) rather than overwrite it, until it is reloaded (tester 53).
let elsewhere = false;

/** Writes the game to localStorage (and this tab's analysis board to sessionStorage). When
 * the browser refuses (its storage is full or disabled), it tries once more without the cache
 * of values (the game itself is small), and otherwise says under the board that a reload
 * would lose the game. */
function save() {
  if (elsewhere) return;
  saveAnalysis();
  // (The values have their own entry: `saveValues`.)
  const state = { ...written(), analysis: null, values: undefined };
  // Another tab changed the game since this tab last wrote it (its storage event may not have
  // come yet): stop rather than write over it.
  // (Read back and compared only when the text there is not what this tab last wrote or read.)
  if (lastKey !== null && storedText() !== lastText) {
    const theirs = storedGame();
    if (theirs && gameKey(theirs) !== lastKey) {
      stopForOtherTab();
      return;
    }
  }
  let trouble = '';
  const text = JSON.stringify(state);
  for (const attempt of [0, 1]) {
    try {
      // The second time with room made: the cache of values dropped.
      if (attempt) localStorage.removeItem(VALUES_KEY);
      localStorage.setItem(STORE_KEY, text);
      lastText = text;
      lastKey = gameKey(sanitize(state));
      trouble = '';
      break;
    } catch (e) {
      trouble = e && e.name === 'QuotaExceededError' ? "the browser's storage for this page is full" : 'the browser refuses to store it';
    }
  }
  if (trouble !== saveTrouble) {
    saveTrouble = trouble;
    const el = $('save-note');
    el.textContent = trouble ? `This game is not saved: ${trouble}. A reload would lose it; export it (Export / import) to keep it.` : '';
    el.hidden = !trouble;
  }
}

/** Which game a cache of values belongs to: its rules and start position (a value holds for
 * its position under its rules). */
const valuesGame = () => JSON.stringify([Object.keys(STANDARD_RULES).map((k) => S.rules[k]), S.start]);

/** The values in `text` (the values entry, as `saveValues` writes it) if they belong to this
 * tab's game; otherwise (another game's, none, damaged) {}. */
function valuesIn(text) {
  try {
    const st = JSON.parse(text || 'null');
    const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
    return isObj(st) && st.game === valuesGame() ? goodValues(st.values, isObj) : {};
  } catch {
    return {};
  }
}

/** Adds the values of `found` that this tab does not have yet; whether there were any. */
function mergeValues(found) {
  let any = false;
  for (const [pos, v] of Object.entries(found)) {
    if (!S.values[pos]) {
      S.values[pos] = v;
      any = true;
    }
  }
  return any;
}

/** Writes the cache of values (with those other tabs stored for the same game) to its own
 * localStorage entry. A browser that refuses loses only the cache over a reload. */
function saveValues() {
  if (elsewhere) return;
  try {
    mergeValues(valuesIn(localStorage.getItem(VALUES_KEY)));
    localStorage.setItem(VALUES_KEY, JSON.stringify({ game: valuesGame(), values: S.values }));
  } catch {
    // Full or refused: the game's own save (`save`) says whether the game is kept.
  }
}

// The game part (`gameKey`) of what this tab last wrote or read in localStorage, or null; and
// that text itself.
let lastKey = null;
let lastText = null;

/** The state as `save` writes it: with the move being sown, if one is. */
const written = () => (isSowing() ? { ...S, ...sowing.game } : S);

/** Whether a move of the game on the board is being sown (animated). */
const isSowing = () => !!sowing && sowing.gen === generation;

/** The saved state's text in localStorage; null if there is none or it cannot be read. */
function storedText() {
  try {
    return localStorage.getItem(STORE_KEY);
  } catch {
    return null;
  }
}

/** The saved state in localStorage, read back; null if there is none or it cannot be read. */
function storedGame() {
  try {
    const text = storedText();
    return text === null ? null : sanitize(JSON.parse(text));
  } catch {
    return null;
  }
}

/** The part of a saved state that is the game and its settings (not the cache of values, the
 * display settings, the analysis board or the position viewed, which each tab keeps for itself:
 * opening the analysis board in one tab stopped the other, tester 56, and so did stepping
 * through the history): two states with the same are the same game. */
function gameKey(st) {
  return JSON.stringify([st.rules, st.board, st.opponent, st.level, st.time, st.humanSide, st.start,
    st.moves, st.record, st.dropped.map((d) => [d.moves, d.cursor, d.note, d.count])]);
}

/** Another tab wrote the saved game: the values it found are kept; if it changed the game,
 * this tab stops and says so. */
function onStorage(e) {
  if (!S || elsewhere || e.newValue === null) return;
  if (e.key === VALUES_KEY) {
    if (mergeValues(valuesIn(e.newValue)) && !busy && G) render();
    return;
  }
  if (e.key !== STORE_KEY) return;
  // Written before this tab's last save, whose event comes only now: what is stored is this
  // tab's game (its save found no other game there), so nothing changed.
  if (e.newValue !== lastText && storedText() === lastText) return;
  let theirs;
  try {
    theirs = sanitize(JSON.parse(e.newValue));
  } catch {
    return;
  }
  // Both read back the same way (key order, the record's shape), so only a change counts; the
  // game compared is the one this tab writes (with a move being sown: tester 55).
  if (gameKey(theirs) === gameKey(sanitize(written()))) {
    for (const [pos, v] of Object.entries(theirs.values)) if (!S.values[pos]) S.values[pos] = v;
    if (!busy && G) render();
    return;
  }
  if (bringsEngineMove(theirs)) {
    adoptEngineMove(theirs, e.newValue);
    return;
  }
  stopForOtherTab();
}

// The engine's move this tab is waiting for: {gen, length (of the game it answers)}, or null.
let thinking = null;

/** Whether `theirs` (another tab's save) is this tab's game with moves after it, written
 * while this tab waits for the engine to move at its end: the other tab (one opened meanwhile,
 * asking the engine too) got the engine's move first (tester 65: one of the two stopped). */
function bringsEngineMove(theirs) {
  if (!thinking || thinking.gen !== generation || isSowing() || S.analysis) return false;
  const mine = sanitize(S);
  const n = mine.moves.length;
  return thinking.length === n && mine.cursor === n && theirs.moves.length > n
    && theirs.cursor === theirs.moves.length && mine.moves.every((m, i) => theirs.moves[i] === m)
    && gameKey({ ...theirs, moves: mine.moves, cursor: n }) === gameKey(mine);
}

/** Takes the game of another tab that brought the engine's move (`bringsEngineMove`) instead
 * of asking on: this tab's request is dropped, and it goes on from there, saving nothing. */
async function adoptEngineMove(theirs, text) {
  generation++;
  queue.clear();
  thinking = null;
  const gen = generation;
  busy = true;
  lastText = text;
  lastKey = gameKey(theirs);
  try {
    const g = await replay(theirs.moves);
    if (gen !== generation) return;
    G = g;
    S.moves = theirs.moves;
    S.cursor = theirs.cursor;
    // (The same as this tab's: `bringsEngineMove`.)
    S.dropped = theirs.dropped;
    const step = g.steps[g.steps.length - 1];
    setEvent(`${describe(step, g.steps.length - 1)} (Played in another tab of this page.)`);
  } catch (e) {
    if (gen !== generation) return;
    // Not replayed here: stop as for any other change, the game is the other tab's.
    busy = false;
    stopForOtherTab();
    return;
  }
  busy = false;
  render();
  afterChange();
}

/** This tab stops for another that changed the saved game: no moves, no saves, a reload offered.
 * An open dialog stays open, saying so, with what was typed in it (a record being pasted was
 * lost with the dialog); only the question whether to replace the game is closed. */
function stopForOtherTab() {
  elsewhere = true;
  generation++;
  queue.clear();
  if (review) stopReview('');
  busy = false;
  clearTimeout(analysisTimer);
  setEvent('');
  if ($('dlg-replace').open) $('dlg-replace').close();
  for (const d of document.querySelectorAll('dialog[open]')) {
    const note = d.querySelector('.error[role="alert"]');
    if (note) note.textContent = 'This game was changed in another tab of this page, and this tab has stopped: what is typed here stays, to be copied. Close this and reload the tab to go on.';
  }
  render();
  disableControls(); // (`render` draws nothing without a game)
}

/** A stopped tab's controls look as dead as they are (they looked usable, tester 55), those
 * that `render` draws anew too (the move list, the analysis board's counts: tester 56); only
 * Reload works, and in the dialogs Close, Cancel, and the record's Copy and Download: a record's
 * text is only made read-only, to be copied. */
function disableControls() {
  for (const c of document.querySelectorAll('button, select, input, textarea')) {
    if (c.id === 'btn-reload' || ['rec-copy', 'rec-download'].includes(c.id)) continue;
    if (c.closest('dialog') && ['close', 'cancel'].includes(c.value)) continue;
    if (c.tagName === 'TEXTAREA') c.readOnly = true;
    else c.disabled = true;
  }
}

// ---- Derived game facts -------------------------------------------------------------------

const stateAt = (i) => (i === 0 ? G.start : G.steps[i - 1]);
const current = () => stateAt(S.cursor);
const atEnd = () => S.cursor === S.moves.length;
const swappedBefore = (i) => S.moves.slice(0, i).includes('swap');

/** 'human' or 'engine' for the board side `side` in the position after `i` moves. */
function controller(side, i = S.cursor) {
  if (S.opponent === 'human') return 'human';
  const humanBoardSide = swappedBefore(i) ? other(S.humanSide) : S.humanSide;
  return side === humanBoardSide ? 'human' : 'engine';
}

/** The most characters of a record's player name shown (the record keeps it whole). */
const NAME_SHOWN = 40;

/** `name` as the page shows it: its first `NAME_SHOWN` characters and "…" when longer (tester
 * 105: a name of 3000 characters took 45 lines under the board). */
function shownName(name) {
  const chars = [...name];
  return chars.length > NAME_SHOWN ? `${chars.slice(0, NAME_SHOWN - 1).join('')}…` : name;
}

/** Display names of the board sides now. */
function names(i = S.cursor) {
  if (S.opponent === 'human') {
    // Player 1 (or the record's South) holds South's row at the start, until a swap.
    const rec = S.record?.names;
    const first = shownName(rec?.south.trim() || 'player 1');
    const second = shownName(rec?.north.trim() || 'player 2');
    return swappedBefore(i) ? { S: second, N: first } : { S: first, N: second };
  }
  const n = {};
  for (const side of ['S', 'N']) n[side] = controller(side, i) === 'human' ? 'you' : `engine (${S.level})`;
  if (swappedBefore(i)) {
    n.S += ', swapped';
    n.N += ', swapped';
  }
  return n;
}

function who(side, i) {
  if (S.opponent === 'human') return `${sideName(side)} (${names(i)[side]})`;
  return controller(side, i) === 'human' ? `You (${sideName(side)})` : `The engine (${sideName(side)})`;
}

const humanToMove = () => {
  const st = current();
  return !st.over && st.to_move && controller(st.to_move) === 'human';
};

// The move list numbers whole turns (a chain of sowings with extra turns, `3-6`); the page's
// game (`S.moves`, `S.cursor`) counts actions. What the page says in counts is in turns, as the
// list shows them (a player read "move 3 of 7" beside a list of 5 turns).

/** The actions of the turn `t` (an item of `/api/game`'s `turns`): 2 for `3-6`, 1 for `2-`. */
const turnLength = (t) => t.turn.replace(/-$/, '').split('-').length;
/** The number of actions played once the turn `t` is over (or, open, as far as it goes). */
const turnEnd = (t) => t.first + turnLength(t);

/** The position after `i` actions of a game of `turns`, in the move list's terms: "the start",
 * "the position after turn 2", or, inside a turn, "turn 2 (S 3-6) after 1 of its 2 sowings";
 * with `total`, each turn number is followed by "of N" (the game's turns). */
function place(turns, i, total = false) {
  const of = total ? ` of ${turns.length}` : '';
  if (i === 0) return total ? `the start, before turn 1${of}` : 'the start';
  const t = turns.find((x) => x.first < i && i <= turnEnd(x));
  if (!t) return `the position after ${plural(i, 'action')}`; // (a game's turns hold its actions)
  const len = turnLength(t);
  if (i === turnEnd(t)) return `the position after turn ${t.number}${of}`;
  return `turn ${t.number}${of} (${t.side} ${t.turn}) after ${i - t.first} of its ${len} sowings`;
}

/** What a game of `turns` loses when it is cut after `at` actions, said in turns: "the game's
 * 2 turns `from`", or, cut inside a turn, "the rest of the game's turn 2 and 1 later turn"
 * (`whose` is "the game's"; `from` says where they start, "from there"), then "was dropped" or
 * "were dropped"; and the turns touched. */
function droppedWords(turns, at, whose, from) {
  const later = turns.filter((t) => turnEnd(t) > at);
  const count = later.length;
  const verb = count === 1 ? 'was dropped' : 'were dropped';
  if (!count || later[0].first >= at) return { words: `${whose} ${plural(count, 'turn')} ${from} ${verb}`, count };
  const rest = `the rest of ${whose} turn ${later[0].number}`;
  return { words: `${count === 1 ? rest : `${rest} and ${plural(count - 1, 'later turn')}`} ${verb}`, count };
}

/** `text` with its first letter a capital. */
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

function gameBody(extra = {}) {
  return { rules: S.rules, position: S.start, moves: S.moves, ...extra };
}

// ---- Rendering ----------------------------------------------------------------------------

/** The New game dialog's board for the start position `st` (a game's `start`): houses and
 * seeds, a layout (mirrored or not), or, for a start the dialog cannot make (`exact` false),
 * its houses with seeds a house that fit them. */
function boardOf(st) {
  const m = st.houses;
  const south = st.pits.slice(0, m);
  const north = st.pits.slice(m + 1, 2 * m + 1);
  const storesEmpty = st.pits[m] === 0 && st.pits[2 * m + 1] === 0;
  const b = { kind: 'uniform', houses: m, seeds: 4, layout: south.join(','), mirrored: false, exact: storesEmpty };
  if (storesEmpty && south[0] > 0 && [...south, ...north].every((x) => x === south[0])) return { ...b, seeds: south[0] };
  if (storesEmpty && st.to_move === 'S' && south.join() === north.join()) return { ...b, kind: 'layout' };
  if (storesEmpty && st.to_move === 'S' && south.join() === [...north].reverse().join()) return { ...b, kind: 'layout', mirrored: true };
  return { ...b, seeds: Math.min(S.board.seeds, mostSeedsAHouse(m)), exact: false };
}

/** The board settings of the New game dialog for a game started from `st` some other way
 * (a record, the analysis board): the record's board, not the last game's (tester 58). */
function boardSettings(st) {
  const { exact, ...board } = boardOf(st);
  return board;
}

function rulesLine() {
  const r = S.rules;
  const st = G.start;
  const m = st.houses;
  const b = boardOf(st);
  let board;
  if (!b.exact) board = `Kalah(${m}) from ${st.position}`;
  else if (b.kind === 'uniform') board = `Kalah(${m}, ${b.seeds})`;
  else board = `Kalah(${m}) layout ${b.layout}${b.mirrored ? ' mirrored' : ''}`;
  const parts = [board];
  parts.push(`capture ${r.capture}`, `end ${r.end}`, `leftovers ${r.leftovers}`);
  if (r['majority-end']) parts.push('majority end');
  if (r.pie) parts.push('pie rule');
  if (!r['first-move-extra-turn']) parts.push('no first-move extra turn');
  parts.push(S.opponent === 'human' ? 'two players' : `vs engine (${S.level})`);
  return parts.join(' · ');
}

function hintsFor(pos) {
  const a = S.values[pos];
  if (!a || !a.moves) return null;
  const best = Math.max(...a.moves.map((m) => m.value));
  const map = new Map();
  for (const m of a.moves) {
    if (m.move !== 'swap') map.set(Number(m.move), { value: m.value, exact: m.exact, best: m.value === best });
  }
  return map;
}

function bottomSide() {
  if (S.opponent === 'human') return 'S';
  return swappedBefore(S.cursor) ? other(S.humanSide) : S.humanSide;
}

/** The button of the toolbar or the move list that goes the other way. */
const PARTNER = {
  'btn-undo': 'btn-redo', 'btn-redo': 'btn-undo', 'nav-first': 'nav-next', 'nav-last': 'nav-prev',
  'nav-prev': 'nav-next', 'nav-next': 'nav-prev',
};

function render() {
  document.body.dataset.busy = String(busy);
  if (!G) return;
  const st = current();
  const board = $('board');
  if (S.analysis) {
    renderAnalysis();
  } else if (!isSowing()) {
    // (While a move is sown, the animation draws the board: H pressed meanwhile redrew the
    // counts from before the move, tester 55.)
    const legal = new Set(humanToMove() && !busy && !elsewhere ? st.legal : []);
    drawBoard(board, {
      pits: st.pits, houses: st.houses, bottom: bottomSide(), toMove: st.to_move,
      legal, names: names(), onSow: (h) => humanMove(String(h)), keys: S.shortcuts,
      hints: S.hints ? hintsFor(st.position) : null,
    });
  }
  setText($('rules-line'), rulesLine());
  $('posstr').value = S.analysis ? analysisPosition() : st.position;
  $('btn-hints').setAttribute('aria-pressed', String(S.hints));
  $('btn-analysis').setAttribute('aria-pressed', String(!!S.analysis));
  $('analysis-panel').hidden = !S.analysis;
  // Nothing can be taken back while a move is sown or the engine thinks; nor can the history be
  // stepped through (`jump`). Each button is off where it can do nothing: at the start, at the
  // end (they were on, and did nothing).
  const still = busy || elsewhere || !!S.analysis;
  const had = document.activeElement;
  for (const [id, off] of [['btn-undo', S.cursor === 0], ['btn-redo', atEnd()], ['nav-first', S.cursor === 0],
    ['nav-prev', S.cursor === 0], ['nav-next', atEnd()], ['nav-last', atEnd()]]) {
    $(id).disabled = off || still;
  }
  // A keyboard player on a button it turned off goes on from its partner (» at the end: ◀), or
  // else from the board (the focus fell to the page's body).
  if (had && had.disabled && had.id in PARTNER) {
    if (!$(PARTNER[had.id]).disabled) $(PARTNER[had.id]).focus();
    else focusBoard();
  }
  setText($('event'), lastEvent);
  renderStatus();
  renderDropped();
  syncReview();
  renderReview();
  renderMoves();
  renderGraph();
  const review = !atEnd() && !S.analysis;
  $('review').hidden = !review;
  if (elsewhere) disableControls();
}

/** Sets the text of `el` only when it changes. The event and status lines (and the other live
 * regions) are said again by a screen reader at every write, the same text or not, and `render`
 * runs at every value found (twice a second while the graph fills in). */
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

function renderStatus() {
  const st = current();
  const el = $('status');
  el.classList.toggle('over', !!st.over);
  if (elsewhere) {
    setText(el, 'This game was changed in another tab of this page. This tab has stopped, so as not to overwrite it: reload it to go on here with the game as the other tab left it.');
    statusButton('btn-retry', false);
    statusButton('btn-swap', false);
    statusButton('btn-reload', true, 'Reload this tab', () => window.location.reload());
    return;
  }
  if (S.analysis) {
    setText(el, 'Analysis board: edit the counts; the values update by themselves.');
    return;
  }
  let text;
  if (st.over) {
    const [s, n] = st.score;
    let verdict;
    if (st.winner === 'draw') verdict = 'A draw.';
    else if (S.opponent === 'human') verdict = `${who(st.winner)} wins.`;
    else verdict = controller(st.winner) === 'human' ? 'You win!' : 'The engine wins.';
    text = `Game over: South ${s}, North ${n}. ${verdict}`;
  } else if (isSowing()) {
    text = S.opponent === 'engine' && controller(st.to_move) === 'engine' ? 'The engine sows its move…' : 'Sowing…';
  } else if (busy && controller(st.to_move) === 'engine' && atEnd()) {
    text = `The engine (${sideName(st.to_move)}) is thinking…`;
  } else if (isStalled() && controller(st.to_move) === 'engine') {
    text = `The engine (${sideName(st.to_move)}) could not move: press Retry, or take a move back.`;
  } else if (busy && controller(st.to_move) === 'human') {
    text = 'Sowing…';
  } else if (controller(st.to_move) === 'human') {
    const you = S.opponent === 'human' ? `${sideName(st.to_move)} to move` : `Your move (${sideName(st.to_move)})`;
    const swap = st.swap ? ' — or swap sides with the button below' : '';
    text = `${you}: click a house${S.shortcuts ? ` or press ${houseKeys(st.houses)}` : ''}${swap}.`;
  } else {
    text = `The engine (${sideName(st.to_move)}) is to move.`;
  }
  if (!atEnd()) text = `Viewing ${place(G.turns, S.cursor, true)}. ${text}`;
  setText(el, text);
  statusButton('btn-retry', !S.analysis && !busy && isStalled(), 'Retry the engine', retryEngine);
  // The pie rule's swap gets its own button.
  const showSwap = !st.over && st.swap && controller(st.to_move) === 'human' && !S.analysis;
  // With hints on, its value as a house's (its name in words, as a house's label: it read
  // "— ≈+8"), marked best when it is.
  const a = showSwap && S.hints ? S.values[st.position] : null;
  const sv = a && a.moves ? a.moves.find((x) => x.move === 'swap') : null;
  const best = sv && sv.value === Math.max(...a.moves.map((x) => x.value));
  const label = `Swap sides (pie rule)${sv ? ` — ${sv.exact ? '' : '≈'}${signed(sv.value)}${best ? ', best' : ''}` : ''}`;
  const swapBtn = statusButton('btn-swap', showSwap, label, () => humanMove('swap'));
  if (swapBtn) {
    swapBtn.classList.toggle('best', !!best);
    const words = sv ? `Swap sides (pie rule); hint: ${sv.exact ? 'exact value' : 'estimated value'} ${signed(sv.value)}${best ? ', best' : ''}` : null;
    if (words) swapBtn.setAttribute('aria-label', words);
    else swapBtn.removeAttribute('aria-label');
  }
}

/** The note of a dropped line and its "Bring back" button, in their own place under the status:
 * shown as long as the line can be brought back, whatever the event line says meanwhile (the
 * engine's move replaced the note there at once). The button is off while a move is sown or the
 * engine thinks. */
function renderDropped() {
  const d = !elsewhere && !S.analysis ? offeredLine() : null;
  setText($('dropped-note'), d ? d.note : '');
  const btn = $('btn-restore');
  btn.hidden = !d;
  btn.disabled = !d || busy;
  if (d) setText(btn, `Bring back the dropped move${d.count === 1 ? '' : 's'}`);
}

/** Shows (after the status line) or removes the button `id`; returns it while shown. */
function statusButton(id, show, label, onClick) {
  let btn = $(id);
  if (show && !btn) {
    btn = document.createElement('button');
    btn.id = id;
    btn.type = 'button';
    btn.addEventListener('click', onClick);
    $('status').after(btn);
  } else if (!show && btn) {
    btn.remove();
    btn = null;
  }
  if (btn) setText(btn, label);
  return btn;
}

function renderMoves() {
  const ol = $('moves');
  // A keyboard player's focus on the list survives its redraw (it fell to the page's body at
  // Enter on a move): the same move, else the current one.
  const had = ol.contains(document.activeElement) ? document.activeElement.dataset.cursor : null;
  ol.innerHTML = '';
  // The current move: the turn that holds the position viewed, also inside it (between its
  // sowings: none was marked).
  const inTurn = S.cursor > 0 ? G.turns.find((t) => t.first < S.cursor && S.cursor <= turnEnd(t)) : null;
  const currentTarget = inTurn ? turnEnd(inTurn) : S.cursor;
  const item = (label, target, aria, verdict = null) => {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.dataset.cursor = target;
    if (aria) b.setAttribute('aria-label', aria);
    if (target === currentTarget) {
      b.classList.add('current');
      b.setAttribute('aria-current', 'step');
    }
    b.addEventListener('click', () => jump(target));
    li.appendChild(b);
    // The review's verdict, under the turn: said in words in the button's name (the line's
    // signs and arrows are read badly), so the line itself is hidden from screen readers.
    if (verdict) {
      const v = document.createElement('span');
      v.className = 'verdict';
      v.setAttribute('aria-hidden', 'true');
      v.textContent = verdict.text;
      li.appendChild(v);
      li.classList.add(...verdict.classes);
    }
    ol.appendChild(li);
  };
  item('start', 0, 'Go to the start position');
  const reviewed = reviewShown();
  for (const t of G.turns) {
    const end = turnEnd(t);
    const verdict = reviewed ? turnVerdict(reviewed.turns.find((r) => r.turn === t.number)) : null;
    const words = verdict ? `: ${verdict.words}` : '';
    item(`${t.number}. ${t.side} ${t.turn}`, end, `Turn ${t.number}, ${sideName(t.side)} ${t.turn}${words}: go to the position after it`, verdict);
    // Inside a turn, the intermediate positions are reachable with the arrow keys.
  }
  // Keep the current move in view inside the list, without scrolling the page.
  const cur = ol.querySelector('.current');
  if (cur) {
    const item = cur.parentElement;
    if (item.offsetTop < ol.scrollTop) ol.scrollTop = item.offsetTop;
    else if (item.offsetTop + item.offsetHeight > ol.scrollTop + ol.clientHeight) {
      ol.scrollTop = item.offsetTop + item.offsetHeight - ol.clientHeight;
    }
  }
  if (had !== null) (ol.querySelector(`[data-cursor="${had}"]`) || cur)?.focus({ preventScroll: true });
}

function renderGraph() {
  const vals = [];
  for (let i = 0; i <= S.moves.length; i++) {
    const a = S.values[stateAt(i).position];
    vals.push(a && a.v !== undefined && a.v !== null ? { v: a.v, exact: a.exact } : undefined);
  }
  // (Its positions named in turns, as the move list counts: its axis said "move 7" at the end
  // of a list of 5.)
  drawGraph($('graph'), vals, S.cursor, jump, { at: (i) => place(G.turns, i), end: `turn ${G.turns.length}` });
}

// ---- Game review ----------------------------------------------------------------------------

/** The longest time the page gives a review (the server cuts it to its own maximum, and the
 * page gives it that, `max_time_ms` of /api/info, when it is less). */
const REVIEW_MAX_MS = 30000;
/** The review's time budget, for the whole game (/api/review's `time_ms`). */
let reviewTime = 10000;
// The game review of this tab (not saved): {key (the game reviewed, `reviewKey`), running,
// abort (an AbortController), data (/api/review's answer), error}, or null. A review belongs to
// the game it was asked for: a move, a line brought back or a new game drops it (`syncReview`),
// stopping it if it runs (the server then stops its search and frees the slot).
let review = null;
// What is said once a review is dropped unfinished ({key: the game it is said for, text}).
let reviewNote = null;

/** The game a review is for: its rules, start and moves (with a move being sown). */
const reviewKey = () => JSON.stringify([S.rules, S.start, written().moves]);

/** `ms` in seconds, as the page says times: "10 s", "0.5 s". */
const seconds = (ms) => `${Math.round(ms / 100) / 10} s`;

/** The review's answer for the game on the board, if there is one. */
function reviewShown() {
  return review && !review.running && review.data && review.key === reviewKey() ? review.data : null;
}

/** The Review button: asks for the review of the whole game (every turn played, whatever
 * position is viewed); pressed again while it runs, stops it. It does not hold up play: a move
 * meanwhile drops it. */
async function startReview() {
  if (!G || elsewhere) return;
  if (review && review.running) {
    stopReview('The review was stopped.');
    render();
    return;
  }
  if (busy || !G.turns.length) return;
  const mine = { key: reviewKey(), running: true, abort: new AbortController(), data: null, error: null };
  review = mine;
  reviewNote = null;
  render();
  try {
    // A busy server is asked once more (a search the page has just cancelled frees its slot
    // within a few tenths of a second; the graph's search gives its slot up), then told.
    const body = gameBody({ time_ms: reviewTime });
    mine.data = await post('/api/review', body, { signal: mine.abort.signal, retries: 1, onBusy: () => queue.yieldBackground() });
  } catch (e) {
    mine.error = e;
  }
  // (Stopped or dropped meanwhile: said there.)
  if (review !== mine) return;
  mine.running = false;
  render();
}

/** Drops the review, stopping it if it runs; `text` is said in its place (for this game). */
function stopReview(text) {
  if (review && review.running) review.abort.abort();
  review = null;
  reviewNote = text ? { key: reviewKey(), text } : null;
}

/** Drops a review of another game than the one on the board (a move played, a line brought
 * back, a new game or record). */
function syncReview() {
  if (review && review.key !== reviewKey()) stopReview(review.running ? 'The review was stopped: the game changed. Press Review again to review the game as it is now.' : '');
  if (reviewNote && reviewNote.key !== reviewKey()) reviewNote = null;
}

/** "a win", "a draw", "a loss". */
const outcomeWords = (o) => `a ${o}`;

/** A value of a review turn: exact (`+2`), or its bounds (`-4..+8`); in words, "between -4
 * and +8". */
function valued(v, bounds, words = false) {
  if (v !== null && v !== undefined) return signed(v);
  if (!bounds) return '?';
  return words ? `between ${signed(bounds[0])} and ${signed(bounds[1])}` : `${signed(bounds[0])}..${signed(bounds[1])}`;
}

/** What the review says of turn `r` (an item of /api/review's `turns`; none: not reviewed):
 * `text` for the line under the turn, `words` for its button's name, and the classes of its
 * list item (`mistake`, `changed` for a turn that changed the result). */
function turnVerdict(r) {
  if (!r) return { text: 'not reviewed', words: 'not reviewed (the review ran out of time)', classes: ['unreviewed'] };
  const value = valued(r.value, r.value_bounds);
  const valueWords = valued(r.value, r.value_bounds, true);
  if (r.loss === 0) return { text: `${value} · best`, words: `value ${valueWords}, a best turn`, classes: ['best'] };
  const best = `best ${r.best ?? '?'} (${valued(r.best_value, r.best_value_bounds)})`;
  const bestWords = `the best was ${r.best ? `${r.best}, worth ` : 'worth '}${valued(r.best_value, r.best_value_bounds, true)}`;
  if (r.loss === null || r.loss === undefined) {
    // Bounds only: the seeds lost are proven at least `least_loss`, or not at all.
    const least = r.least_loss ?? 0;
    const lost = least > 0 ? `≥${least} lost` : 'loss not proven';
    const lostWords = least > 0 ? `at least ${plural(least, 'seed')} lost` : 'whether seeds were lost is not proven';
    return {
      text: `${value} · ${r.best ? best : `best ${valued(r.best_value, r.best_value_bounds)}`}, ${lost}`,
      words: `value ${valueWords}; ${bestWords}; ${lostWords}`,
      classes: least > 0 ? ['unproven', 'mistake'] : ['unproven'],
    };
  }
  const change = r.outcome_change;
  return {
    text: `${value} · mistake: ${best}, ${r.loss} lost${change ? ` · ${change[0]} → ${change[1]}` : ''}`,
    words: `value ${valueWords}; a mistake: ${bestWords}; ${plural(r.loss, 'seed')} lost${change ? `; the result changed from ${outcomeWords(change[0])} to ${outcomeWords(change[1])}` : ''}`,
    classes: change ? ['mistake', 'changed'] : ['mistake'],
  };
}

/** The person who began as side `p` (`player` of a review's turn), as the review's summary
 * names them, in the board's words: "South — you", "North — engine (easy)", "South — player
 * 1"; after a swap "You, who began as South" (a record's name as it is written). */
function reviewPlayer(p) {
  const human = S.opponent === 'human';
  const who = human ? names(0)[p] : controller(p, 0) === 'human' ? 'you' : `engine (${S.level})`;
  if (!S.moves.includes('swap')) return `${sideName(p)} — ${who}`;
  const recorded = human && !!S.record?.names?.[p === 'S' ? 'south' : 'north']?.trim();
  const named = recorded ? who : capital(who === `engine (${S.level})` ? `the engine (${S.level})` : who);
  return `${named}, who began as ${sideName(p)}`;
}

/** One player's line of a review's summary (`d`: /api/review's answer): "South — you: 4 turns,
 * 2 mistakes, 26 seeds lost; the result changed at turn 1 (win to loss)." */
function reviewSummaryLine(d, p) {
  const s = d.players[p === 'S' ? 'south' : 'north'];
  let line = `${reviewPlayer(p)}: ${plural(s.turns, 'turn')}${d.complete ? '' : ' reviewed'}, ${plural(s.mistakes, 'mistake')}`;
  if (s.loss > 0) line += `, ${plural(s.loss, 'seed')} lost`;
  if (s.unproven > 0) line += `, ${s.unproven} not proven`;
  if (s.outcome_changes.length) {
    const at = s.outcome_changes.map((n) => {
      const c = d.turns.find((t) => t.turn === n).outcome_change;
      return `${n} (${c[0]} to ${c[1]})`;
    });
    line += `; the result changed at turn${at.length > 1 ? 's' : ''} ${at.join(', ')}`;
  }
  return `${line}.`;
}

/** What the review says above the move list, as a sentence or two. */
function reviewSays() {
  if (!review) return reviewNote && reviewNote.key === reviewKey() ? reviewNote.text : '';
  if (review.running) return `Reviewing the game: every turn against the best one with perfect play, from the last turn back (up to ${seconds(reviewTime)})…`;
  const e = review.error;
  if (e) {
    // (A 503 is also a search that overran its time: said in the server's words.)
    if (e.status === 503 && /busy/.test(e.message)) return 'The server is busy (every engine slot is in use), so the game was not reviewed. Press Review again in a moment.';
    return sentence(`The game could not be reviewed: ${e.message}`);
  }
  const d = review.data;
  const said = [];
  const got = d.turns.length;
  if (!d.complete) {
    const missing = got ? d.turns[0].turn - 1 : d.game_turns;
    const which = missing === 1 ? 'turn 1 was' : `turns 1 to ${missing} were`;
    said.push(got
      ? `Time ran out (${seconds(d.time_limit_ms)}) before the whole game was reviewed: ${which} not reviewed, only the last ${plural(got, 'turn')}.`
      : `Time ran out (${seconds(d.time_limit_ms)}) before any turn was reviewed.`);
  }
  const ranges = d.turns.filter((t) => t.value === null || t.best_value === null).length;
  if (ranges) said.push(`${ranges === 1 ? '1 turn has' : `${ranges} turns have`} a range of values, not solved in time.`);
  if (got) said.push('Values: the final store difference with perfect play after each turn, for the side that played it.');
  return said.join(' ');
}

/** Draws the Review button, what the review says and its summary (the move list draws its
 * values: `renderMoves`). */
function renderReview() {
  const btn = $('btn-review');
  const running = !!review && review.running;
  setText(btn, running ? 'Stop the review' : 'Review');
  btn.disabled = elsewhere || (!running && (busy || !G.turns.length));
  // (A keyboard player on it goes on from the board: the focus fell to the page's body.)
  if (btn.disabled && document.activeElement === btn) focusBoard();
  const note = $('review-note');
  const says = reviewSays();
  setText(note, says);
  note.classList.toggle('trouble', !!review && !review.running && (!!review.error || !review.data.complete || !review.data.exact));
  const d = reviewShown();
  const lines = d ? ['S', 'N'].map((p) => reviewSummaryLine(d, p)) : [];
  const ul = $('review-summary');
  if ([...ul.children].map((li) => li.textContent).join('\n') !== lines.join('\n')) {
    ul.replaceChildren(...lines.map((text) => {
      const li = document.createElement('li');
      li.textContent = text;
      return li;
    }));
  }
}

// ---- Analysis (values, hints, graph) ------------------------------------------------------

function analysisKey(pos) {
  return pos;
}

/** The positions whose values are being asked for, with the game's generation (a request of
 * a game replaced, whose rules may differ, does not stand for the new game's). */
const pending = new Set();

/** Asks the server for the value of `pos` and of its moves, unless known: in the background
 * (the graph's) below the priority `FOREGROUND` (a hint the player asked for). */
function requestValue(pos, priority = 1) {
  const key = analysisKey(pos);
  if (S.values[key]) return Promise.resolve(S.values[key]);
  const gen = generation;
  const asked = `${gen} ${key}`;
  if (pending.has(asked) && priority < FOREGROUND) return Promise.resolve(null);
  pending.add(asked);
  const rules = S.rules;
  const time = S.hintTime;
  return queue
    .run(async (signal, onBusy) => {
      if (gen !== generation) return null;
      // Found meanwhile (by another request of this position, or another tab): the entry
      // itself, not an answer to rebuild (rebuilt, it lost its value for good, tester 56).
      if (S.values[key]) return { known: S.values[key] };
      const a = await post('/api/analyze', { rules, position: pos, time_ms: time }, { signal, onBusy });
      if (gen !== generation) return null;
      // Stored by the job itself, before the queue starts the next one: a job of the same
      // position queued meanwhile (the graph's, under the hint's) finds it and asks nothing
      // (tester 105: it was stored a moment later, and the same search ran twice).
      const entry = { v: a.value_south, exact: a.exact, value: a.value, moves: a.moves };
      S.values[key] = entry;
      saveValues();
      return { known: entry, fresh: true };
    }, priority, priority >= FOREGROUND ? () => (shownHint(pos, gen) ? priority : 0) : null)
    .then((a) => {
      if (!a || gen !== generation) return null;
      if (a.fresh && !busy) render();
      return a.known;
    })
    .catch((e) => {
      if (!e) return null;
      console.warn('analysis failed', e.message);
      // Only the position on the board is worth a word: the graph's others fill in later.
      if (gen === generation && S.hints && G && !S.analysis && current().position === pos && !isStalled() && !eventIsError) {
        setEvent(sentence(`No hints for this position: ${e.message}`));
        if (!busy) render();
      }
      return null;
    })
    .finally(() => pending.delete(asked));
}

/** Whether `pos` is the position of the game `gen` shown now, whose hint is wanted: a hint of
 * another (cancelled by the engine's move, the player gone on meanwhile) waits in the
 * background, for the graph, behind the hint of the position shown (`EngineQueue`'s `rank`). */
function shownHint(pos, gen) {
  return gen === generation && !!G && !S.analysis && S.hints && current().position === pos;
}

/** Fills the graph: the current position first (in the foreground with hints on: the hint of
 * the position shown), then the others from the newest back, in the background. */
function fillValues() {
  if (!G || S.analysis) return;
  requestValue(current().position, S.hints ? FOREGROUND : 1);
  for (let i = S.moves.length; i >= 0; i--) requestValue(stateAt(i).position, 0);
}

// ---- Moves ---------------------------------------------------------------------------------

async function replay(moves) {
  const g = await post('/api/game', { rules: S.rules, position: S.start, moves });
  return g;
}

/** Shows the step's sowing seed by seed, then the capture, then the final position. Stops as
 * soon as the game `gen` is replaced (a new game or record must not be drawn over). */
async function animate(step, gen) {
  const o = step.outcome;
  if ((SPEED[S.speed] ?? 140) === 0 || o.swapped || !o.path.length) return;
  renderStatus(); // "Sowing…" (the engine's move said "thinking" while it was sown, tester 55)
  const board = $('board');
  // Each pause is `beats` of the speed chosen now: a change of speed during a long sowing
  // takes effect at once (tester 99: 127 seeds took 18 s, "instant" or not).
  const pause = async (beats) => {
    const delay = SPEED[S.speed] ?? 140;
    if (delay) await sleep(beats * delay);
    if (gen !== generation) throw new Stale();
  };
  const before = step.before;
  const [countsText] = before.split(' ');
  const pits = countsText.split(',').map(Number);
  const m = step.houses;
  drawBoard(board, {
    pits, houses: m, bottom: bottomSide(), toMove: step.side, legal: new Set(), names: names(),
  });
  // A board too wide for the screen (it scrolls sideways) follows the seeds, and ends with the
  // last pit sown in view (seeds sown out of sight went unseen); smoothly, unless the player
  // asks for less motion. Then the seeds are sown all at once, one step, without the pits'
  // flashes (the style sheet drops them too).
  const calm = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  const smooth = !calm;
  const flash = (name) => (calm ? '' : name);
  const originBin = findOrigin(step);
  pits[originBin] = 0;
  setPit(board, originBin, 0, flash('origin'));
  if (calm) {
    for (const bin of o.path) {
      pits[bin] += 1;
      setPit(board, bin, pits[bin]);
    }
    showPit(board, o.path[o.path.length - 1], false);
  } else {
    showPit(board, originBin, smooth);
  }
  await pause(1);
  for (const bin of calm ? [] : o.path) {
    pits[bin] += 1;
    setPit(board, bin, pits[bin], 'flash');
    showPit(board, bin, smooth);
    await pause(1);
  }
  if (o.captured) {
    const [a, b] = o.capture_bins;
    const store = storeOf(m, step.side);
    await pause(2);
    pits[store] += pits[a] + pits[b];
    pits[a] = 0;
    pits[b] = 0;
    setPit(board, a, 0, flash('capture'));
    setPit(board, b, 0, flash('capture'));
    setPit(board, store, pits[store], flash('flash'));
    await pause(3);
  }
  // The sweep: the seeds left in the houses go to the stores the leftover rule says, or off
  // the board under `nobody` (tester 99: they vanished without a word).
  const left = o.left ?? [0, 0];
  if (o.ended && left[0] + left[1] > 0) {
    await pause(3);
    const swept = o.swept ?? [0, 0];
    for (let h = 0; h < m; h++) {
      for (const bin of [h, m + 1 + h]) {
        if (pits[bin]) setPit(board, bin, 0, flash('capture'));
        pits[bin] = 0;
      }
    }
    ['S', 'N'].forEach((side, i) => {
      if (!swept[i]) return;
      const store = storeOf(m, side);
      pits[store] += swept[i];
      setPit(board, store, pits[store], flash('flash'));
    });
  }
  if (o.ended) await pause(3);
}

function findOrigin(step) {
  const m = step.houses;
  const h = Number(step.move);
  return step.side === 'S' ? h - 1 : m + h;
}

function describe(step, i) {
  const o = step.outcome;
  const actor = who(step.side, i);
  if (o.swapped) return `${actor} swapped sides (pie rule): the players exchange rows.`;
  let t = `${actor} sowed house ${step.move} (${plural(o.sown, 'seed')})`;
  if (o.captured) t += `, captured ${plural(o.captured, 'seed')}`;
  const inStore = o.path.length && o.path[o.path.length - 1] === storeOf(step.houses, step.side);
  if (o.extra_turn && !o.ended) t += ' — extra turn!';
  else if (inStore && !o.ended) t += ', the last seed into the store: no extra turn on the very first sowing (Manchester rule).';
  else t += '.';
  if (o.ended) t += ` The game is over: ${o.ended}${o.leftovers ? `; ${o.leftovers}` : ''}.`;
  return t;
}

/** What the last turn of the game did, so far: each of its sowings (`describe`). */
function describeTurn() {
  const t = G.turns[G.turns.length - 1];
  const said = [];
  for (let i = t.first; i < S.moves.length; i++) said.push(describe(G.steps[i], i));
  return said.join(' ');
}

/** Thrown by an animation whose game was replaced meanwhile. */
class Stale extends Error {}

/** The dropped line "Bring back" offers: the most recent (`S.dropped`) that parts from the
 * game (`offeredIndex`); else null. */
function offeredLine() {
  const i = offeredIndex(S.dropped, S.moves);
  return i < 0 ? null : S.dropped[i];
}

/** Whether the game has a dropped line to bring back (`offeredLine`). */
const hasDropped = () => !!offeredLine();

/** Plays `mv` (a string) at the cursor and animates it. In the history, the game's next move
 * just steps on; another move starts a new line, and the later moves can be brought back
 * (`restoreDropped`). The game is saved before the animation, so a reload meanwhile keeps it. */
async function applyMove(mv) {
  const gen = generation;
  const at = S.cursor;
  if (!atEnd() && S.moves[at] === mv) {
    const step = G.steps[at];
    if (!(await animated(step, gen, { cursor: at + 1 }))) return false;
    S.cursor = at + 1;
    // Against the engine, on to the next position where you are to move, as Redo goes.
    while (S.opponent === 'engine' && !atEnd() && !current().over && controller(current().to_move) === 'engine') S.cursor++;
    setEvent(describe(step, at));
    save();
    return true;
  }
  const moves = [...S.moves.slice(0, at), mv];
  const g = await replay(moves);
  if (gen !== generation) return false;
  // A new line: the game's moves from here are the line dropped (said in the game's turns).
  let dropped = S.dropped;
  if (S.moves.length > at) {
    const { words, count } = droppedWords(G.turns, at, "the game's", 'from there');
    const note = `A new line from ${place(G.turns, at)}: ${words}.`;
    // (On top of those dropped before, which stay: a second line dropped lost the first for
    // good.)
    dropped = withDropped(S.dropped, { moves: S.moves, cursor: at, note, count, ...lineComments() });
  }
  // (The record's comments of the turns no longer played go with the line dropped.)
  const record = recordFor(G.turns, S.moves, moves);
  const step = g.steps[g.steps.length - 1];
  if (!(await animated(step, gen, { moves, cursor: moves.length, dropped, record }))) return false;
  G = g;
  S.moves = moves;
  S.cursor = moves.length;
  S.dropped = dropped;
  S.record = record;
  // (The note of a dropped line stands in its own place: `renderDropped`.)
  setEvent(describe(step, moves.length - 1));
  save();
  return true;
}

/** Runs the animation of `step`, the game saved as `game` (its moves and cursor with the step)
 * meanwhile; false if the game `gen` was replaced meanwhile. */
async function animated(step, gen, game) {
  const mine = { gen, game };
  sowing = mine;
  save();
  try {
    await animate(step, gen);
  } catch (e) {
    if (e instanceof Stale) return false;
    throw e;
  } finally {
    if (sowing === mine) sowing = null;
  }
  return gen === generation;
}

/** The "Bring back" button: the game as it was before a move in its history dropped its later
 * moves (the most recent dropped line that parts from the game: `offeredLine`), viewed where
 * that move was played. The line played since is dropped in its turn, kept below the others:
 * the next line offered is the most recent of the others that parts from the game then, and so
 * on, back to that newer line. */
async function restoreDropped() {
  if (!hasDropped() || busy || S.analysis || elsewhere) return;
  const lines = [...S.dropped];
  const [d] = lines.splice(offeredIndex(lines, S.moves), 1);
  const gen = generation;
  // A keyboard player keeps the focus on the button while it is still offered (it is off, and
  // loses the focus, while the line is replayed).
  const focused = document.activeElement === $('btn-restore');
  busy = true;
  render();
  try {
    const g = await replay(d.moves);
    if (gen !== generation) return;
    // The line played since is dropped in its turn, and can be brought back the same way
    // (tester 101: its moves were lost without a word).
    const since = S.moves;
    const sinceTurns = G.turns;
    const sinceComments = lineComments();
    // (The record's comments of that line come back with it.)
    const record = d.comments && S.record ? { ...S.record, comments: d.comments } : recordFor(sinceTurns, since, d.moves);
    G = g;
    S.moves = d.moves;
    S.cursor = d.cursor;
    S.record = record;
    let kept = lines;
    if (since.length > d.cursor && !sameMoves(since, d.moves)) {
      // (Its note says where it starts: it may be offered long after, viewing elsewhere.)
      const { words, count } = droppedWords(sinceTurns, d.cursor, "the newer line's", `from ${place(sinceTurns, d.cursor)}`);
      const note = `${capital(words)}.`;
      kept = [{ moves: since, cursor: d.cursor, note, count, ...sinceComments }, ...lines.filter((x) => !sameMoves(x.moves, since))];
    }
    S.dropped = kept;
    setEvent(`The dropped moves are back: viewing ${place(g.turns, d.cursor, true)}.`);
    save();
  } catch (e) {
    if (gen === generation) setEvent(sentence(`Cannot bring the moves back: ${e.message}`), true);
  } finally {
    if (gen === generation) busy = false;
  }
  if (gen !== generation) return;
  render();
  // (Else on the board: it fell to the page's body with the button gone.)
  if (focused) {
    if (!$('btn-restore').hidden) $('btn-restore').focus();
    else focusBoard();
  }
  afterChange();
}

async function humanMove(mv) {
  if (busy || S.analysis || !G) return;
  const st = current();
  if (st.over || !humanToMove()) return;
  if (mv !== 'swap' && !st.legal.includes(Number(mv))) {
    setEvent(`House ${mv} cannot be sown${Number(mv) > st.houses ? `: houses are numbered 1 to ${st.houses}` : ': it is empty'}.`);
    render();
    return;
  }
  if (mv === 'swap' && !st.swap) return;
  busy = true;
  render();
  const gen = generation;
  try {
    await applyMove(mv);
  } catch (e) {
    if (gen === generation) setEvent(sentence(`Your move was not played: ${e.message}`), true);
  } finally {
    // A new game started meanwhile owns `busy` and the engine now.
    if (gen === generation) busy = false;
  }
  if (gen !== generation) return;
  render();
  afterChange();
}

/** Whether the engine failed to move in the position shown (see `stalled`). */
const isStalled = () => !!stalled && stalled.gen === generation && stalled.cursor === S.cursor
  && sameMoves(stalled.moves, S.moves);

/** After any change: let the engine move if it is its turn, and ask for values. */
async function afterChange() {
  const st = current();
  if (S.analysis || st.over || !atEnd() || controller(st.to_move) !== 'engine' || busy || isStalled()) {
    fillValues();
    return;
  }
  // The engine moves first; the values are asked for once it has (the call at the end). A value
  // asked for now was cancelled by the engine's request at once, and the server, still freeing
  // that search's slot, could refuse the engine for a second (tester 55).
  stalled = null;
  busy = true;
  render();
  const gen = generation;
  thinking = { gen, length: S.moves.length };
  try {
    const res = await queue.run(
      (signal, onBusy) => post('/api/engine', { rules: S.rules, position: st.position, level: S.level, time_ms: S.time }, { signal, onBusy }),
      FOREGROUND + 1,
    );
    // A new game, or a move made meanwhile (a race with a stale request): not for this position.
    if (gen !== generation || !res || !atEnd() || current().position !== st.position) return;
    // A turn of several sowings (extra turns) is said whole, not its last sowing only (a screen
    // reader did not have the time to read the others before they were replaced); after the
    // player's swap, the swap is said first (it was replaced at once by the engine's move:
    // tester 108).
    const last = S.moves.length - 1;
    const swapped = last >= 0 && S.moves[last] === 'swap' ? `${describe(G.steps[last], last)} ` : '';
    if (await applyMove(res.move)) setEvent(`${swapped}${describeTurn()}`);
  } catch (e) {
    // null: the job was dropped by a new game.
    if (e && gen === generation) {
      stalled = { gen, cursor: S.cursor, moves: [...S.moves], message: e.message };
      setEvent(sentence(`The engine could not move: ${e.message}`), true);
    }
  } finally {
    if (gen === generation) {
      busy = false;
      thinking = null;
    }
  }
  render();
  if (gen !== generation) return;
  // After a failed move the values are still worth having (the graph, a hint for Retry).
  if (isStalled()) fillValues();
  else afterChange();
}

/** The Retry button of a failed engine move. */
function retryEngine() {
  stalled = null;
  setEvent('');
  afterChange();
}

// ---- History --------------------------------------------------------------------------------

function jump(i) {
  // (The move list's and the graph's buttons call it too: a stopped tab jumped, tester 56.)
  if (busy || S.analysis || !G || elsewhere) return;
  S.cursor = Math.max(0, Math.min(S.moves.length, i));
  setEvent('');
  save();
  render();
  // At the game's end with the engine to move (a brought-back line may end so), it moves, or
  // Retry is offered (tester 105: it hung there, "The engine is to move", asking nothing).
  afterChange();
}

function undo() {
  if (busy || S.analysis || !G || elsewhere || S.cursor === 0) return;
  let i = S.cursor - 1;
  if (S.opponent === 'engine') {
    while (i > 0) {
      const st = stateAt(i);
      if (!st.over && controller(st.to_move, i) === 'human') break;
      i--;
    }
  }
  S.cursor = i;
  setEvent('Move taken back.');
  save();
  render();
  afterChange();
}

function redo() {
  if (busy || S.analysis || !G || elsewhere || atEnd()) return;
  let i = S.cursor + 1;
  if (S.opponent === 'engine') {
    while (i < S.moves.length) {
      const st = stateAt(i);
      if (st.over || controller(st.to_move, i) === 'human') break;
      i++;
    }
  }
  S.cursor = i;
  setEvent('Move replayed.');
  save();
  render();
  afterChange();
}

async function playOn() {
  if (busy || !G) return;
  const moves = S.moves.slice(0, S.cursor);
  const gen = generation;
  // Busy while the server replays: a move meanwhile would be played into the game it replaces.
  busy = true;
  render();
  let g;
  try {
    g = await replay(moves);
  } catch (e) {
    if (gen !== generation) return;
    busy = false;
    setEvent(sentence(`Cannot play on from here: ${e.message}`), true);
    render();
    return;
  }
  if (gen !== generation) return;
  busy = false;
  // The later moves can be brought back, as after a new move in the history (tester 99: they
  // were gone for good here, without a word). Their note stands in its own place
  // (`renderDropped`), which the engine's move does not take.
  // (Said where they start: the note may be offered again long after, viewing elsewhere.)
  if (S.moves.length > moves.length) {
    const { words, count } = droppedWords(G.turns, moves.length, "the game's", `from ${place(G.turns, moves.length)}`);
    const note = `${capital(words)}.`;
    S.dropped = withDropped(S.dropped, { moves: S.moves, cursor: moves.length, note, count, ...lineComments() });
  }
  S.record = recordFor(G.turns, S.moves, moves);
  G = g;
  S.moves = moves;
  setEvent('Playing on from this position.');
  save();
  // The button is gone with the review: a keyboard player goes on from the board (the focus
  // fell to the page's body).
  const focused = document.activeElement === $('btn-playon');
  render();
  if (focused) focusBoard();
  afterChange();
}

// ---- New game -------------------------------------------------------------------------------

/** Starts a new game of `spec` ({rules, board, opponent, level, time, humanSide}) in the state
 * `base` (default: the page's state). With `gen`, the game is started only if no other has
 * started or been loaded since the game `gen` (else false, nothing changed); true once started.
 * With `ask` (an async function), the new game, once the server has made it, replaces the game
 * only if `ask` says yes (else false, nothing changed). */
async function startGame(spec, { gen = null, base = null, ask = null } = {}) {
  const body = { rules: spec.rules };
  if (spec.board.kind === 'layout') {
    body.layout = spec.board.layout;
    body.mirrored = !!spec.board.mirrored;
  } else {
    body.houses = Number(spec.board.houses);
    body.seeds = Number(spec.board.seeds);
  }
  const g = await post('/api/game', body);
  if (gen !== null && gen !== generation) return false;
  if (ask && !(await ask())) return false;
  generation++;
  queue.clear();
  busy = false;
  delete document.body.dataset.unavailable;
  if (base) S = base;
  Object.assign(S, spec);
  S.start = g.start_position;
  S.moves = [];
  S.cursor = 0;
  S.values = {};
  S.analysis = null;
  S.record = null;
  S.dropped = [];
  G = g;
  setEvent('New game.');
  save();
  render();
  afterChange();
  return true;
}

function fillNewDialog() {
  const f = $('new-form');
  const lv = f.elements.level;
  if (!lv.options.length) {
    for (const l of levels) lv.add(new Option(l, l));
  }
  f.elements.board.value = S.board.kind;
  f.elements.houses.value = S.board.houses;
  f.elements.seeds.value = S.board.seeds;
  f.elements.layout.value = S.board.layout;
  f.elements.mirrored.checked = !!S.board.mirrored;
  f.elements.capture.value = S.rules.capture;
  f.elements.end.value = S.rules.end;
  f.elements.leftovers.value = S.rules.leftovers;
  f.elements['majority-end'].checked = !!S.rules['majority-end'];
  f.elements.pie.checked = !!S.rules.pie;
  f.elements['first-move-extra-turn'].checked = !!S.rules['first-move-extra-turn'];
  f.elements.opponent.value = S.opponent;
  limitSeeds();
  f.elements.level.value = S.level;
  f.elements.time.value = String(S.time);
  f.elements.side.value = S.humanSide;
  syncPlayers();
  for (const sel of [f.elements.capture, f.elements.end, f.elements.leftovers]) ruleHelp(sel);
  for (const el of [f.elements.houses, f.elements.seeds, f.elements.layout]) showFieldError(el, '');
  $('new-error').textContent = '';
}

/** Says below a rule's list what its choice means (the choices are short, to fit a phone). */
function ruleHelp(sel) {
  $(`${sel.name}-help`).textContent = sel.selectedOptions[0]?.dataset.help ?? '';
}

/** What is wrong with a count field of the New game dialog (`checkCount`), as the player is
 * told it: "Give the number of houses a side." when empty; else '' if nothing. */
function countProblem(el) {
  if (!el.value.trim()) return `Give the number of ${el.name === 'houses' ? 'houses a side' : 'seeds a house'}.`;
  return el.validationMessage;
}

/** Shows `message` just below the field `el` of the New game dialog (a count, the layout;
 * nothing: hides it), and marks the field invalid for a screen reader while it is shown. */
function showFieldError(el, message) {
  const p = $(`${el.name}-error`);
  p.textContent = message;
  p.hidden = !message;
  if (message) el.setAttribute('aria-invalid', 'true');
  else el.removeAttribute('aria-invalid');
}

/** Whether the game on the board is under way: a move played (or being sown), and not over.
 * New game asks before it replaces such a game. */
function gameInProgress() {
  if (!G) return false;
  if (isSowing()) return true;
  return S.moves.length > 0 && !stateAt(S.moves.length).over;
}

/** Asks whether the game in progress may be replaced (the dialog "Replace the game in
 * progress?") by `what` ("the new one", "the record", ...), its yes button reading `yes`;
 * resolves to true for yes, false for "Keep this game", Escape or the dialog closed
 * otherwise. */
function confirmReplace(what = 'the new one', yes = 'Start the new game') {
  const dlg = $('dlg-replace');
  const n = G.turns.length;
  $('replace-text').textContent = `The game in progress${n ? ` (${plural(n, 'turn')} played)` : ''} will be replaced by ${what}, and cannot be brought back. To keep it, export it first (Export / import).`;
  $('replace-start').textContent = yes;
  dlg.returnValue = '';
  showDialog(dlg);
  return new Promise((resolve) => {
    dlg.addEventListener('close', () => resolve(dlg.returnValue === 'replace'), { once: true });
  });
}

/** The engine's fields and the side played are off when the opponent is another person on
 * this screen, who plays the other side (tester 99: they stayed on, and seemed to matter). */
function syncPlayers() {
  const f = $('new-form').elements;
  const human = f.opponent.value === 'human';
  for (const el of [f.level, f.time, ...f.side]) el.disabled = human;
}

/** The most seeds a house of a board of `m` houses a side may hold (21 for 6 houses). */
const mostSeedsAHouse = (m) => Math.max(1, Math.floor(maxSeeds / (2 * m)));

/** Sets the New game form's largest seeds a house for its houses a side, and checks both
 * counts (`checkCount`). */
function limitSeeds() {
  const f = $('new-form').elements;
  // (Houses not a count yet: the limit of the smallest board, the most any board allows; its
  // number is not said, `checkCount`.)
  const m = housesIn(f.houses) ?? 1;
  f.seeds.max = String(mostSeedsAHouse(m));
  checkCount(f.houses);
  checkCount(f.seeds);
}

/** The whole number in the text of a count field, read with the white space around it trimmed
 * (a player's pasted "12 " was refused); NaN if it is not one. */
const countIn = (el) => (/^\d+$/.test(el.value.trim()) ? Number(el.value.trim()) : NaN);

/** The houses a side in the New game dialog's field `el`, or null if it holds no count of
 * them (1 to its max). */
function housesIn(el) {
  const n = countIn(el);
  return n >= Number(el.min) && n <= Number(el.max) ? n : null;
}

/** Checks a count field of the New game dialog (houses, seeds: text fields, so that white space
 * around the number can be trimmed): a whole number from its `min` to its `max`, or nothing
 * yet (`readNewDialog` asks for it). Says what is wrong as the field's validity message, and
 * keeps its spin button values for screen readers. */
function checkCount(el) {
  const lo = Number(el.min);
  const hi = Number(el.max);
  const n = countIn(el);
  const what = el.name === 'houses' ? 'Houses a side' : 'Seeds a house';
  const limit = el.name === 'seeds' ? ` (a board holds at most ${maxSeeds} seeds)` : '';
  const bad = el.value.trim() !== '' && !(n >= lo && n <= hi);
  // Seeds while the houses are no count: no most a house, which depends on them (tester 105:
  // "1 to 127", the limit of a board of one house, for "6a" houses).
  const open = el.name === 'seeds' && housesIn(el.form.elements.houses) === null;
  const range = open ? `${lo} up` : `${lo} to ${hi}`;
  el.setCustomValidity(bad ? `${what}: a whole number from ${range}${limit}.` : '');
  el.setAttribute('aria-valuemin', String(lo));
  el.setAttribute('aria-valuemax', String(hi));
  if (Number.isNaN(n)) el.removeAttribute('aria-valuenow');
  else el.setAttribute('aria-valuenow', String(n));
}

/** Up and Down step a count field by one within its bounds, as in a number field. */
function stepCount(e) {
  if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
  e.preventDefault();
  const el = e.target;
  const lo = Number(el.min);
  const hi = Number(el.max);
  const up = e.key === 'ArrowUp';
  const n = countIn(el);
  const from = Number.isNaN(n) ? (up ? lo - 1 : hi + 1) : n;
  el.value = String(Math.max(lo, Math.min(hi, from + (up ? 1 : -1))));
  el.dispatchEvent(new Event('input', { bubbles: true }));
}

function readNewDialog() {
  const f = $('new-form').elements;
  if (f.board.value !== 'layout') {
    for (const [field, what] of [['houses', 'houses a side'], ['seeds', 'seeds a house']]) {
      if (!f[field].value.trim()) throw new Error(`Give the number of ${what}.`);
    }
  }
  // (The fields of a board not chosen may hold anything: the last game's counts then.)
  const count = (el, old) => (Number.isNaN(countIn(el)) ? old : countIn(el));
  return {
    rules: {
      capture: f.capture.value, end: f.end.value, leftovers: f.leftovers.value,
      'majority-end': f['majority-end'].checked, pie: f.pie.checked,
      'first-move-extra-turn': f['first-move-extra-turn'].checked,
    },
    board: {
      kind: f.board.value, houses: count(f.houses, S.board.houses), seeds: count(f.seeds, S.board.seeds),
      layout: f.layout.value.trim(), mirrored: f.mirrored.checked,
    },
    opponent: f.opponent.value, level: f.level.value, time: Number(f.time.value), humanSide: f.side.value,
  };
}

// ---- Analysis board -------------------------------------------------------------------------

function analysisPosition() {
  const a = S.analysis;
  return `${a.pits.join(',')} ${a.toMove}${a.phase ? ` ${a.phase}` : ''}`;
}

let analysisTimer = null;
let analysisSeq = 0;

function renderAnalysis() {
  const a = S.analysis;
  const m = (a.pits.length - 2) / 2;
  const result = a.result;
  let hints = null;
  if (result && result.moves) {
    const best = Math.max(...result.moves.map((x) => x.value));
    hints = new Map();
    for (const x of result.moves) {
      if (x.move !== 'swap') hints.set(Number(x.move), { value: x.value, exact: x.exact, best: x.value === best });
    }
  }
  drawBoard($('board'), {
    pits: a.pits, houses: m, bottom: 'S', toMove: a.toMove, editable: true, hints,
    names: { S: '', N: '' },
    onEdit: (bin, v, typed) => {
      a.pits[bin] = v;
      // A count past what a pit holds is said, not changed in silence (tester 108: 999 became
      // 255 without a word).
      setEvent(typed > v ? `A pit holds at most 255 seeds: ${binName(a.pits.length / 2 - 1, bin)} was given ${typed}, and holds 255.` : '');
      setText($('event'), lastEvent);
      // Redrawn once the change is over: a count changed by Tab fires its change event before
      // the focus moves on, and a redraw then took the focus away (tester 55). The count itself
      // is in at once (Play from here, clicked straight after, plays it), and so are the
      // position's text and the end of the old value: until the redraw, the value shown was
      // the position's before the change (a browser test read that value with the new board).
      a.result = null;
      a.error = null;
      a.typed = null;
      a.failure = null;
      a.playFailed = false;
      $('posstr').value = analysisPosition();
      renderAnalysisText();
      setTimeout(analyse, 0);
    },
  });
  renderAnalysisText();
}

/** The analysis board's text: the side to move, the position, the value and the moves'. */
function renderAnalysisText() {
  const a = S.analysis;
  const result = a.result;
  for (const r of document.querySelectorAll('input[name="an-side"]')) r.checked = r.value === a.toMove;
  const inp = $('an-position');
  // Text refused as no position stays as typed, to be mended (tester 103: Set position, which
  // takes the focus, put the board's position back over it).
  if (document.activeElement !== inp) inp.value = a.typed ?? analysisPosition();
  const out = $('an-value');
  const list = $('an-moves');
  list.innerHTML = '';
  if (a.error) {
    setText(out, sentence(`Not a position: ${a.error}`));
    return;
  }
  if (a.failure) {
    setText(out, sentence(a.playFailed ? `Could not play from it: ${a.failure}` : `Could not analyse it: ${a.failure}`));
    return;
  }
  if (!result) {
    setText(out, 'Computing…');
    return;
  }
  if (result.over) {
    setText(out, `The game is over in this position: South ${result.score[0]}, North ${result.score[1]}.`);
    return;
  }
  const side = sideName(result.to_move);
  setText(out, `Value: ${signed(result.value)} for ${side} (${result.exact ? 'exact' : 'estimate'}); best: ${result.best.join(', ')}.`);
  for (const x of result.moves) {
    const li = document.createElement('li');
    li.textContent = `${x.move === 'swap' ? 'swap' : `house ${x.move}`}: ${x.exact ? '' : '≈'}${signed(x.value)}`;
    list.appendChild(li);
  }
}

/** Asks for the value of the analysis board's position (`text`: as typed, if it was). */
function analyse(text = null) {
  const a = S.analysis;
  if (!a || elsewhere) return;
  a.result = null;
  a.error = null;
  a.typed = null;
  a.failure = null;
  a.playFailed = false;
  save();
  render();
  clearTimeout(analysisTimer);
  const seq = ++analysisSeq;
  analysisTimer = setTimeout(async () => {
    try {
      const body = { rules: S.rules, position: analysisPosition(), time_ms: S.hintTime };
      const r = await queue.run((signal, onBusy) => post('/api/analyze', body, { signal, onBusy }), FOREGROUND);
      if (seq !== analysisSeq || !S.analysis) return;
      S.analysis.result = r;
      S.analysis.accepted = { pits: [...S.analysis.pits], toMove: S.analysis.toMove, phase: S.analysis.phase };
    } catch (e) {
      if (seq !== analysisSeq || !S.analysis || !e) return;
      // 400/422: the position (or the rules) refused; anything else: the server or the network.
      if (e.status === 400 || e.status === 422) refusedAnalysis(e.message, text);
      else S.analysis.failure = e.message;
    }
    save();
    render();
  }, 150);
}

/** A message of the server's in the page's words: without the API's field names (`field
 * 'layout': `) and with rules named as the New game dialog names them, not as `pie=on` (tester
 * 105: the API's wording reached the page). */
function pageWords(message) {
  return String(message)
    .replace(/^field '(position|layout|rules)': /, '')
    .replace(/^'layout' item (\d+): /, 'Seeds in houses 1..m, item $1: ')
    .replace('add pie=on or first-move-extra-turn=off', 'start a game with the pie rule, or without the extra turn on the very first move')
    .replace('add pie=on', 'start a game with the pie rule');
}

/** The analysis board's position refused by the server (`message`): said, the text kept in the
 * field to be mended, and the board back at the last position accepted (tester 105: the refused
 * one stayed drawn, in the Position field too, under "Not a position"). */
function refusedAnalysis(message, text) {
  const a = S.analysis;
  a.error = pageWords(message);
  a.failure = null;
  a.typed = text || analysisPosition();
  if (a.accepted) {
    a.pits = [...a.accepted.pits];
    a.toMove = a.accepted.toMove;
    a.phase = a.accepted.phase;
  }
}

// Where the focus was when the analysis board was opened (`focusPlace`), given back when it is
// closed.
let analysisOpener = null;

function openAnalysis() {
  if (busy || !G) return;
  analysisOpener = focusPlace();
  const st = current();
  S.analysis = { pits: [...st.pits], toMove: st.to_move || 'S', phase: st.phase || null, result: null };
  S.analysis.accepted = { pits: [...st.pits], toMove: S.analysis.toMove, phase: S.analysis.phase };
  setEvent('');
  analyse();
  // Into it (a keyboard player was left on the toolbar, the board far above).
  $('analysis-panel').focus();
}

/** Closes the analysis board (Close, Escape, A, the toolbar's button); the focus, if it was in
 * it, goes back to where it was when it was opened (it fell to the page's body). */
function closeAnalysis() {
  const a = document.activeElement;
  const inside = !a || a === document.body || $('analysis-panel').contains(a) || $('board').contains(a);
  S.analysis = null;
  analysisSeq++;
  save();
  render();
  if (inside) giveFocusBack(analysisOpener);
  analysisOpener = null;
  fillValues();
}

const PHASES = ['opening', 'first-turn', 'pie'];

/** Reads a position as the server writes it (counts in bin order, the side to move, an optional
 * phase tag): `4,4,4,4,4,4,0,4,4,4,4,4,4,0 S`; white space around the commas is allowed; a
 * finished game (every house empty) may leave the side out. The counts are plain digits (not
 * `4.0`, `1e2`, `0x10` or an empty item), as the server reads them. */
function parsePositionText(text) {
  const m = /^\s*((?:\s*\d+\s*,)+\s*\d+)\s*(.*)$/s.exec(text); // s: U+2028 is white space too
  if (!m) {
    const bad = text.split(/[\s,]+/).find((x) => x && !/^\d+$/.test(x) && !/^(S|N|south|north)$/i.test(x) && !PHASES.includes(x.toLowerCase()));
    throw new Error(bad ? `'${bad}' is not a seed count (a whole number 0 to 255)` : 'the counts are whole numbers joined by commas, then the side to move (S or N)');
  }
  const pits = m[1].split(',').map((x) => Number(x.trim()));
  if (pits.some((x) => x > 255)) throw new Error('the counts must be whole numbers 0 to 255');
  if (pits.length < 4 || pits.length > 26 || pits.length % 2) throw new Error('a position has 2m+2 counts (m = 1..12)');
  const rest = m[2].trim() ? m[2].trim().split(/\s+/) : [];
  if (!rest.length) {
    // A finished game (every house empty) needs no side letter, as the server reads it.
    const houses = pits.length / 2 - 1;
    if (pits.every((x, i) => x === 0 || i === houses || i === pits.length - 1)) return { pits, toMove: 'S', phase: null };
    throw new Error('a position with seeds in its houses needs a side to move (S, N, South or North) after the counts; only a finished game, every house empty, has none');
  }
  // The letter, or the side's name, as the server reads it (`South`, `north`).
  const toMove = { SOUTH: 'S', NORTH: 'N' }[rest[0].toUpperCase()] ?? rest[0].toUpperCase();
  if (toMove !== 'S' && toMove !== 'N') throw new Error(`'${rest[0]}' is not a side to move (S, N, South or North, in any case)`);
  // The tag in any case, as the server reads it (`Opening`, `PIE`).
  const phase = rest[1] === undefined ? null : rest[1].toLowerCase();
  if (phase !== null && !PHASES.includes(phase)) throw new Error(`'${rest[1]}' is not a phase tag (${PHASES.join(', ')})`);
  if (rest.length > 2) throw new Error(`'${rest[2]}': a position ends with its side to move and phase tag`);
  return { pits, toMove, phase };
}

async function playFromAnalysis() {
  // A position typed into the text field but not yet set (Enter, Set position) is the one
  // played from (tester 99: the board's was, while the page said "the analysis position").
  const typed = $('an-position').value.trim();
  if (typed && typed !== analysisPosition() && !takeAnalysisText(typed)) return;
  const pos = analysisPosition();
  try {
    const g = await post('/api/game', { rules: S.rules, position: pos });
    // (As New game: a game under way is replaced only once the player says so.)
    if (gameInProgress() && !(await confirmReplace('a game from this position', 'Play from here'))) return;
    generation++;
    queue.clear();
    busy = false;
    S.analysis = null;
    S.record = null;
    S.start = g.start_position;
    S.moves = [];
    S.cursor = 0;
    S.values = {};
    S.dropped = [];
    S.board = boardSettings(g.start);
    G = g;
    setEvent('Playing from the analysis position.');
    save();
    render();
    analysisOpener = null;
    focusBoard(); // (the analysis board is gone: the focus fell to the page's body)
    afterChange();
  } catch (e) {
    if (!S.analysis) return;
    const refused = e.status === 400 || e.status === 422;
    if (refused) refusedAnalysis(e.message, typed);
    else {
      S.analysis.error = null;
      S.analysis.failure = e.message;
    }
    // (Said once: it was "Could not analyse it: cannot play from it: ...", tester 99.)
    S.analysis.playFailed = !refused;
    render();
  }
}

// ---- Records --------------------------------------------------------------------------------

/** The record's player tags, other tags and comments: those of the record the game was loaded
 * from (its names unless they were a person against the engine), else in the form `kalah play`
 * saves and reads back (`human`, or `kalah engine LEVEL`): who played South's and North's rows
 * at the start. */
function recordTags() {
  const tag = (side) => (controller(side, 0) === 'human' ? 'human' : `kalah engine ${S.level}`);
  const names = S.record?.names ?? { south: tag('S'), north: tag('N') };
  return { ...names, tags: S.record?.tags ?? [], comments: S.record?.comments ?? [] };
}

async function openRecords() {
  $('rec-error').textContent = '';
  try {
    const r = await post('/api/record/export', gameBody(recordTags()));
    $('rec-text').value = r.text;
  } catch (e) {
    $('rec-error').textContent = sentence(capital(e.message));
  }
  showDialog($('dlg-records'));
}

/** The players of a record's `South` and `North` tags when they are a person against the
 * engine as `kalah play` writes them (`human`, `kalah engine LEVEL`, in any case, as `kalah
 * play` reads them): `{ humanSide, level }` (the row the person held at the start); else
 * null. */
function recordOpponent(south, north) {
  const engine = (tag) => {
    // Words apart by any white space, as `kalah play` reads them.
    const m = /^kalah\s+engine\s+(\S+)$/i.exec((tag || '').trim());
    const level = m && m[1].toLowerCase();
    return level && levels.includes(level) ? level : null;
  };
  const human = (tag) => (tag || '').trim().toLowerCase() === 'human';
  if (human(south) && engine(north)) return { humanSide: 'S', level: engine(north) };
  if (engine(south) && human(north)) return { humanSide: 'N', level: engine(south) };
  return null;
}

async function importRecord() {
  const text = $('rec-text').value;
  try {
    const g = await post('/api/record/import', { text });
    // A game under way is replaced only once the player says so (as by New game); kept, both
    // dialogs close and it is as it was.
    if (gameInProgress() && !(await confirmReplace('the record', 'Load the record'))) {
      // (A tab stopped meanwhile keeps the record there, to be copied: `stopForOtherTab`.)
      if (!elsewhere) $('dlg-records').close();
      return;
    }
    generation++;
    queue.clear();
    busy = false;
    S.rules = g.rules;
    S.start = g.start_position;
    S.moves = g.moves;
    S.cursor = g.moves.length;
    S.values = {};
    S.analysis = null;
    S.dropped = [];
    // The players, from the tags as `kalah play` and this page write them: `human` against
    // `kalah engine LEVEL` (who held each row at the start) is a game against the engine;
    // anything else is played by two people on this screen, and its names are written back
    // on export (as are the other tags, such as Event, either way).
    const vs = recordOpponent(g.south, g.north);
    S.record = { names: vs ? null : { south: g.south, north: g.north }, tags: g.tags, comments: g.comments };
    S.board = boardSettings(g.start);
    G = g;
    if (vs) {
      S.opponent = 'engine';
      S.humanSide = vs.humanSide;
      S.level = vs.level;
      // After a swap you hold the other row: both said, as `kalah play` says them (tester: "you
      // play South", then North's move was asked of you).
      const start = sideName(vs.humanSide);
      const you = g.moves.includes('swap') ? `you started as ${start}; after the swap you play ${sideName(other(vs.humanSide))}` : `you play ${start}`;
      setEvent(`Record loaded (${plural(g.turns.length, 'turn')}); ${you} against the engine (${vs.level}), as the record names the players.`);
    } else {
      S.opponent = 'human';
      setEvent(`Record loaded (${plural(g.turns.length, 'turn')}); both sides are played on this screen.`);
    }
    save();
    $('dlg-records').close();
    render();
    afterChange();
  } catch (e) {
    $('rec-error').textContent = sentence(capital(e.message));
  }
}

async function copyText(text, what) {
  try {
    await navigator.clipboard.writeText(text);
    setEvent(`${what} copied: ${text}`);
  } catch {
    const inp = $('posstr');
    inp.focus();
    inp.select();
    setEvent(`Press Ctrl+C to copy the ${what.toLowerCase()}.`);
  }
  setText($('event'), lastEvent);
}

// ---- Keyboard and wiring -----------------------------------------------------------------------

const HOUSE_KEYS = { 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 8, 9: 9, 0: 10, '-': 11, '=': 12 };

/** The single-key shortcuts of actions (besides the houses' `HOUSE_KEYS`), in lower case. */
const SHORTCUTS = new Set(['u', 'r', 'h', 'n', 'a']);

/** The keys a focused scrolling box scrolls with. */
const SCROLL_KEYS = new Set(['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End', 'PageUp', 'PageDown']);

function onKey(e) {
  if (!S || elsewhere || e.defaultPrevented || e.altKey || e.metaKey) return;
  // Escape closes the analysis board, from any of its fields too.
  if (e.key === 'Escape' && S.analysis && !document.querySelector('dialog[open]')) {
    closeAnalysis();
    e.preventDefault();
    return;
  }
  const t = e.target;
  if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT')) return;
  if (document.querySelector('dialog[open]')) return;
  const k = e.key;
  // The board's sideways scrolling box, focused, scrolls with these keys, and only scrolls
  // (tester 105: they stepped through the history too).
  if (t && t.classList && t.classList.contains('scroller') && SCROLL_KEYS.has(k)) return;
  if (e.ctrlKey) {
    if (e.repeat) return;
    if (k === 'z') { undo(); e.preventDefault(); }
    if (k === 'y') { redo(); e.preventDefault(); }
    return;
  }
  // A key held down repeats: a move or an action is taken once (holding 1 sowed South's 1, then
  // North's). The single-key shortcuts do nothing once turned off (`S.shortcuts`).
  if ((k in HOUSE_KEYS || SHORTCUTS.has(k.toLowerCase())) && (e.repeat || !S.shortcuts)) return;
  if (k in HOUSE_KEYS && !S.analysis) {
    humanMove(String(HOUSE_KEYS[k]));
    e.preventDefault();
  } else if (k === 'u' || k === 'U') undo();
  else if (k === 'r' || k === 'R') redo();
  else if (k === 'ArrowLeft') jump(S.cursor - 1);
  else if (k === 'ArrowRight') jump(S.cursor + 1);
  else if (k === 'Home') jump(0);
  else if (k === 'End') jump(S.moves.length);
  else if (k === 'h' || k === 'H') toggleHints();
  else if (k === 'n' || k === 'N') openNew();
  else if (k === 'a' || k === 'A') (S.analysis ? closeAnalysis() : openAnalysis());
  else return;
}

function toggleHints() {
  S.hints = !S.hints;
  save();
  render();
  if (S.hints && G) requestValue(current().position, FOREGROUND);
}

function openNew() {
  fillNewDialog();
  showDialog($('dlg-new'));
}

/** Opens the dialog `dlg`, remembering where the focus was (`focusPlace`): the browser gives it
 * back when the dialog closes, but not to a house of a board redrawn meanwhile (a value found),
 * and then it fell to the page's body (`wire` gives it back). */
function showDialog(dlg) {
  dlg.opener = focusPlace();
  dlg.showModal();
}

/** Where the focus is, to be given back later (`giveFocusBack`): the element, and the pit of the
 * board it is on (the board may be redrawn meanwhile). */
function focusPlace() {
  const el = document.activeElement;
  return { el, bin: el?.closest?.('#board button.pit')?.dataset.bin };
}

/** Gives the focus back to `place` (`focusPlace`): its element if it is still on the page and
 * can take it, else the same house of the board if it can be sown, else the board (`focusBoard`). */
function giveFocusBack(place) {
  const el = place?.el;
  if (el && el !== document.body && el.isConnected && !el.disabled && el.getClientRects().length) {
    el.focus();
    return;
  }
  focusBoard(place?.bin);
}

/** Puts the focus on the board: on the house `bin` if it can be sown now, else on the first
 * that can, else on the board itself. */
function focusBoard(bin) {
  const board = $('board');
  let el = bin === undefined ? null : board.querySelector(`button.pit[data-bin="${bin}"]`);
  if (!el || el.tabIndex < 0) el = board.querySelector('button.pit.playable') || board;
  el.focus();
}

function wire() {
  // Every control waits for the page to hold its saved state and game (the first answers of
  // the server; the New game dialog needs only the state, for a page that could not restore
  // its game) and does nothing in a tab that stopped for another (`elsewhere`). A click before
  // then threw (tester 53).
  const ready = (fn, needsGame = true) => (...args) => {
    if (S && (G || !needsGame) && !elsewhere) return fn(...args);
    return undefined;
  };
  $('btn-new').addEventListener('click', ready(openNew, false));
  $('btn-undo').addEventListener('click', ready(undo));
  $('btn-redo').addEventListener('click', ready(redo));
  $('btn-hints').addEventListener('click', ready(toggleHints));
  $('btn-analysis').addEventListener('click', ready(() => (S.analysis ? closeAnalysis() : openAnalysis())));
  $('btn-records').addEventListener('click', ready(openRecords));
  $('btn-copy').addEventListener('click', ready(() => copyText($('posstr').value, 'Position')));
  $('btn-playon').addEventListener('click', ready(playOn));
  $('btn-restore').addEventListener('click', ready(restoreDropped));
  $('btn-review').addEventListener('click', ready(startReview));
  $('nav-first').addEventListener('click', ready(() => jump(0)));
  $('nav-prev').addEventListener('click', ready(() => jump(S.cursor - 1)));
  $('nav-next').addEventListener('click', ready(() => jump(S.cursor + 1)));
  $('nav-last').addEventListener('click', ready(() => jump(S.moves.length)));
  $('speed').addEventListener('change', ready((e) => { S.speed = e.target.value; save(); }));
  $('hint-time').addEventListener('change', ready((e) => { S.hintTime = Number(e.target.value); save(); }));
  $('shortcuts').addEventListener('change', ready((e) => {
    S.shortcuts = e.target.checked;
    save();
    showShortcuts();
    render();
  }));
  $('new-form').elements.houses.addEventListener('input', ready(limitSeeds, false));
  // A field of one kind of board typed in chooses that kind (tester 99: a layout typed while
  // "Houses and seeds" stayed chosen started Kalah(6,4) without a word).
  {
    const f = $('new-form').elements;
    const choose = (kind) => () => { f.board.value = kind; };
    for (const el of [f.houses, f.seeds]) {
      el.addEventListener('input', choose('uniform'));
      el.addEventListener('input', () => showFieldError(el, ''));
      el.addEventListener('keydown', stepCount);
    }
    for (const sel of [f.capture, f.end, f.leftovers]) sel.addEventListener('change', () => ruleHelp(sel));
    f.seeds.addEventListener('input', () => checkCount(f.seeds));
    for (const el of [f.layout, f.mirrored]) el.addEventListener('input', choose('layout'));
    f.layout.addEventListener('input', () => showFieldError(f.layout, ''));
    f.opponent.addEventListener('change', syncPlayers);
  }
  $('new-form').addEventListener('submit', ready(async (e) => {
    if (e.submitter && e.submitter.value !== 'start') return;
    e.preventDefault();
    // Only the fields of the board chosen are checked: an unused seeds a house too many for
    // its houses blocked a custom layout (tester 56). (The form itself is `novalidate`.)
    const f = $('new-form').elements;
    limitSeeds(); // (the counts checked as they are now)
    $('new-error').textContent = '';
    if (f.board.value === 'layout') {
      if (!f.layout.value.trim()) {
        showFieldError(f.layout, 'Give the seeds of each house, such as 4,4,5,4,3,4.');
        f.layout.focus();
        return;
      }
    } else {
      // What is wrong with a count is said just below it, the first such field focused and
      // its message scrolled into view (said at the foot of the dialog, it was off a phone's
      // screen).
      const wrong = [f.houses, f.seeds].filter((el) => {
        const problem = countProblem(el);
        showFieldError(el, problem);
        return !!problem;
      });
      if (wrong.length) {
        wrong[0].focus();
        $(`${wrong[0].name}-error`).scrollIntoView({ block: 'nearest' });
        return;
      }
    }
    try {
      // A game under way is replaced only once the player says so; "Keep this game" goes back
      // to it (both dialogs closed), untouched.
      await startGame(readNewDialog(), { ask: gameInProgress() ? () => confirmReplace() : null });
      if (!elsewhere) $('dlg-new').close();
    } catch (err) {
      // A layout refused is said just below it, the field focused, as a count is (it was said
      // at the dialog's foot); anything else there. As sentences (the server's messages start
      // in lower case, without a full stop).
      const message = sentence(capital(pageWords(err.message)));
      if (f.board.value === 'layout' && /^(field 'layout'|'layout' item)/.test(err.message)) {
        showFieldError(f.layout, message);
        f.layout.focus();
        $('layout-error').scrollIntoView({ block: 'nearest' });
      } else {
        $('new-error').textContent = message;
        $('new-error').scrollIntoView({ block: 'nearest' });
      }
    }
  }, false));
  $('rec-import').addEventListener('click', ready(importRecord));
  // (Copy and Download work in a stopped tab too: a record typed there is kept to be copied.)
  $('rec-copy').addEventListener('click', async () => {
    // The button says what happened, for a moment (tester 99: no word that it copied).
    const btn = $('rec-copy');
    try {
      await navigator.clipboard.writeText($('rec-text').value);
      btn.textContent = 'Copied';
    } catch {
      $('rec-text').select();
      btn.textContent = 'Press Ctrl+C';
    }
    clearTimeout(btn.resetTimer);
    btn.resetTimer = setTimeout(() => { btn.textContent = 'Copy'; }, 2000);
  });
  $('rec-download').addEventListener('click', () => {
    const blob = new Blob([$('rec-text').value], { type: 'text/plain' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = 'game.kalah';
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  });
  $('rec-file').addEventListener('change', ready(async (e) => {
    const f = e.target.files[0];
    // Emptied, so that the same file chosen again (edited meanwhile) is read again (tester 99).
    e.target.value = '';
    if (f) {
      $('rec-text').value = await f.text();
      $('rec-error').textContent = ''; // (the last record's error stayed under the new one)
    }
  }));
  for (const r of document.querySelectorAll('input[name="an-side"]')) {
    r.addEventListener('change', ready(() => {
      if (S.analysis && r.checked) { S.analysis.toMove = r.value; S.analysis.phase = null; analyse(); }
    }));
  }
  $('an-load').addEventListener('click', ready(loadAnalysisText));
  $('an-position').addEventListener('keydown', ready((e) => { if (e.key === 'Enter') loadAnalysisText(); }));
  $('an-start').addEventListener('click', ready(() => {
    S.analysis.pits = [...G.start.pits];
    S.analysis.toMove = G.start.to_move || 'S';
    S.analysis.phase = G.start.phase || null;
    analyse();
  }));
  $('an-clear').addEventListener('click', ready(() => {
    const a = S.analysis;
    const m = (a.pits.length - 2) / 2;
    a.pits = a.pits.map((x, i) => (i === m || i === 2 * m + 1 ? x : 0));
    a.phase = null;
    analyse();
  }));
  $('an-play').addEventListener('click', ready(playFromAnalysis));
  $('an-close').addEventListener('click', ready(closeAnalysis));
  // A dialog closed gives the focus back where it was, also when the browser cannot (`showDialog`).
  for (const dlg of document.querySelectorAll('dialog')) {
    dlg.addEventListener('close', () => {
      const a = document.activeElement;
      if (!a || a === document.body || a.closest('dialog:not([open])')) giveFocusBack(dlg.opener);
    });
  }
  document.addEventListener('keydown', onKey);
  window.addEventListener('storage', onStorage);
}

function loadAnalysisText() {
  const text = $('an-position').value;
  if (takeAnalysisText(text)) analyse(text);
}

/** Puts the position `text` on the analysis board; false, with the error shown, if it is not
 * one. */
function takeAnalysisText(text) {
  try {
    const p = parsePositionText(text);
    S.analysis.pits = p.pits;
    S.analysis.toMove = p.toMove;
    S.analysis.phase = p.phase;
    return true;
  } catch (e) {
    S.analysis.error = e.message;
    S.analysis.typed = text;
    S.analysis.result = null;
    render();
    return false;
  }
}

async function boot() {
  wire();
  try {
    const i = await info();
    if (i && i.levels) levels = i.levels;
    if (i && Number.isInteger(i.max_seeds)) maxSeeds = i.max_seeds;
    if (i && Number.isInteger(i.max_time_ms) && i.max_time_ms > 0) reviewTime = Math.min(i.max_time_ms, REVIEW_MAX_MS);
  } catch {
    /* keep the built-in list */
  }
  const text = storedText();
  let saved = null;
  try {
    saved = JSON.parse(text || 'null');
  } catch {
    saved = null;
  }
  S = sanitize(saved);
  if (S.start) {
    S.analysis = storedAnalysis();
    // An older save kept the values in the game's entry, which the next save writes without
    // them: into their own entry now (tester 65: a save lost them before a value was found).
    const older = Object.keys(S.values).length > 0;
    try {
      mergeValues(valuesIn(localStorage.getItem(VALUES_KEY)));
    } catch {
      // Unreadable: the values are asked for again.
    }
    if (older) saveValues();
  }
  lastKey = saved === null ? null : gameKey(S);
  lastText = text;
  $('speed').value = S.speed;
  $('hint-time').value = String(S.hintTime);
  $('shortcuts').checked = S.shortcuts;
  showShortcuts();
  let note = '';
  // A game started (New game) or loaded while the saved one is replayed is the one to keep: the
  // replay's answer is then dropped, as is the start of a game to replace a refused one
  // (tester 55: the old game's board came back under the new game's settings).
  const gen = generation;
  const overtaken = () => {
    if (gen === generation) return false;
    document.body.dataset.ready = 'true';
    return true;
  };
  if (S.start) {
    try {
      const g = await replay(S.moves);
      if (overtaken()) return;
      G = g;
      S.cursor = Math.min(S.cursor, S.moves.length);
      setEvent(S.moves.length ? 'Your game is back where you left it.' : '');
      render();
      if (S.analysis) analyse();
      afterChange();
      document.body.dataset.ready = 'true';
      return;
    } catch (e) {
      if (overtaken()) return;
      if (!(e instanceof ApiError) || ![400, 413, 422].includes(e.status)) {
        // The server is down or failing: keep the saved game for a reload.
        unavailable(`Cannot restore your game: ${sentence(e.message)} Reload the page to try again.`);
        return;
      }
      // The server refuses the saved game (damaged, or from another version): say so.
      note = `Your saved game could not be restored (${e.message}); a new game has started.`;
    }
  }
  const spec = (st) => ({
    rules: st.rules, board: st.board, opponent: st.opponent, level: st.level, time: st.time, humanSide: st.humanSide,
  });
  try {
    if (!(await startGame(spec(S), { gen }))) {
      overtaken();
      return;
    }
  } catch (e) {
    if (overtaken()) return;
    if (e instanceof ApiError && [400, 413, 422].includes(e.status)) {
      // The saved settings are refused (a board of 99 houses, say): the default game.
      try {
        const fallback = defaultState();
        if (!(await startGame(spec(fallback), { gen, base: fallback }))) {
          overtaken();
          return;
        }
        note = `Your saved settings were refused (${e.message}); a new game of Kalah(6,4) has started.`;
      } catch (e2) {
        if (overtaken()) return;
        unavailable(`Cannot start a game: ${sentence(e2.message)} Reload the page to try again.`);
        return;
      }
    } else {
      unavailable(`Cannot start a game: ${sentence(e.message)} Reload the page to try again.`);
      return;
    }
  }
  if (note) {
    setEvent(note);
    render();
  }
  document.body.dataset.ready = 'true';
}

/** The keys that sow the houses of a board of `m` houses a side: `1`, `1–6`, `1–9, 0, - or =`
 * (0, - and = are houses 10 to 12; tester 99: "press 1–1", and "1–9" on 12 houses). */
function houseKeys(m) {
  if (m === 1) return '1';
  if (m <= 9) return `1–${m}`;
  const keys = ['1–9', '0', '-', '='].slice(0, m - 8);
  return `${keys.slice(0, -1).join(', ')} or ${keys[keys.length - 1]}`;
}

/** The toolbar's buttons name their single-key shortcut ("New game (N)", the key in
 * `data-key`) while the shortcuts work (`S.shortcuts`). */
function showShortcuts() {
  for (const b of document.querySelectorAll('button[data-key]')) {
    b.title = `${b.title.replace(/ \(.\)$/, '')}${S.shortcuts ? ` (${b.dataset.key})` : ''}`;
  }
}

/** `n` and `word`, plural unless n is 1: "1 move", "3 moves". */
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `text` ending as a sentence (a full stop added unless it ends in one, or in ? or !). */
const sentence = (text) => (/[.?!]$/.test(text) ? text : `${text}.`);

/** The page without a game (the server cannot be reached): says why, and how to go on. The
 * saved game is left as it is. */
function unavailable(message) {
  $('status').textContent = message;
  $('event').textContent = '';
  document.body.dataset.ready = 'true';
  document.body.dataset.unavailable = 'true';
}

window.addEventListener('error', (e) => {
  const el = $('event');
  if (el) el.textContent = `Page error: ${e.message}`;
});
window.addEventListener('unhandledrejection', (e) => {
  const el = $('event');
  if (el) el.textContent = `Page error: ${e.reason && e.reason.message ? e.reason.message : e.reason}`;
});
void binName;
boot();
