// Drawing the Kalah board: two rows of houses and a store at each end, seeds as beads, counts,
// house numbers, hint badges and, on the analysis board, number fields to edit the counts.
//
// Bin order (as in the API): South houses 1..m, South store, North houses 1..m, North store.
// The side shown at the bottom sows left to right with its store on the right; the top row runs
// right to left with its store on the left, so seeds travel counter-clockwise.

const SIDE_NAME = { S: 'South', N: 'North' };
const BEAD_COLOURS = ['#e9c46a', '#f4a261', '#e76f51', '#8ecae6', '#a8dadc', '#caffbf', '#ffd6a5', '#bdb2ff'];
const MAX_BEADS = 30;

export const sideName = (s) => SIDE_NAME[s] || '';
export const other = (s) => (s === 'S' ? 'N' : 'S');

/** Bin of `side`'s house `h` (1..m) on a board of `m` houses a side. */
export const binOf = (m, side, h) => (side === 'S' ? h - 1 : m + h);
/** Bin of `side`'s store. */
export const storeOf = (m, side) => (side === 'S' ? m : 2 * m + 1);
/** The side and house number (0 for a store) of a bin. */
export function whose(m, bin) {
  if (bin < m) return { side: 'S', house: bin + 1 };
  if (bin === m) return { side: 'S', house: 0 };
  if (bin < 2 * m + 1) return { side: 'N', house: bin - m };
  return { side: 'N', house: 0 };
}

/** "South house 3" or "North store". */
export function binName(m, bin) {
  const w = whose(m, bin);
  return w.house ? `${sideName(w.side)} house ${w.house}` : `${sideName(w.side)} store`;
}

const signed = (v) => (v > 0 ? `+${v}` : `${v}`);

function beads(n, isStore) {
  const frag = document.createDocumentFragment();
  const shown = Math.min(n, MAX_BEADS);
  for (let i = 0; i < shown; i++) {
    const b = document.createElement('span');
    b.className = 'bead';
    let x;
    let y;
    if (isStore) {
      // Stores: beads piled in three columns from the bottom up.
      const rows = Math.ceil(shown / 3);
      const col = i % 3;
      const row = Math.floor(i / 3);
      x = 30 + col * 20 + (row % 2) * 5;
      y = 88 - row * Math.min(8, 76 / Math.max(rows, 1));
    } else {
      // Houses: a golden-angle spiral.
      const r = 31 * Math.sqrt((i + 0.5) / Math.max(shown, 3));
      const a = i * 2.39996;
      x = 50 + r * Math.cos(a);
      y = 46 + r * Math.sin(a) * 0.9;
    }
    b.style.left = `${x}%`;
    b.style.top = `${Math.min(Math.max(y, 8), 92)}%`;
    b.style.background = BEAD_COLOURS[(i * 5 + n) % BEAD_COLOURS.length];
    frag.appendChild(b);
  }
  return frag;
}

/**
 * Draws the board into `root`.
 * opts: { pits, houses, bottom: 'S'|'N', toMove, legal: Set of houses the viewer may sow now,
 *         hints: Map house -> {value, exact} (for the side to move), editable: bool,
 *         names: {S, N}, onSow(h), onEdit(bin, count, typed: the number typed, before it was
 *         brought within 0..255), keys: whether the keys 1–9 sow (their
 *         number said in a house's label) }
 */
export function drawBoard(root, opts) {
  const m = opts.houses;
  const bottom = opts.bottom || 'S';
  const top = other(bottom);
  // Focus inside the board survives the redraw (tester 53: a keyboard player lost it at every
  // move): the same pit, else the first house to sow, else the board itself. A count being
  // typed on the analysis board keeps what is typed so far and the selection (an answer coming
  // meanwhile redraws; the count Tab selected must still be replaced by what is typed next).
  const active = document.activeElement;
  const editing = active && active.tagName === 'INPUT';
  const focus = active && active !== document.body && root.contains(active)
    ? {
      bin: active.closest('[data-bin]')?.dataset.bin,
      input: editing ? { value: active.value, from: active.selectionStart, to: active.selectionEnd } : null,
      scroller: active.classList.contains('scroller'),
    }
    : null;
  // A board scrolled sideways (too wide for its box) stays where the player scrolled it, the
  // same board (it came back to its left end at every move); a smooth scroll on its way to a
  // pit being sown (`showPit`) goes on to it.
  const old = root.querySelector('.scroller');
  const same = old && root.style.getPropertyValue('--m') === String(m);
  const scrolled = same ? old.scrollLeft : 0;
  const heading = same ? old.heading : undefined;
  root.innerHTML = '';
  root.style.setProperty('--m', m);
  root.classList.toggle('editing', !!opts.editable);

  const pit = (bin) => {
    const w = whose(m, bin);
    const isStore = w.house === 0;
    const count = opts.pits[bin];
    const el = document.createElement(isStore || opts.editable ? 'div' : 'button');
    el.className = `pit ${isStore ? 'store' : 'house'} side-${w.side}`;
    el.dataset.bin = bin;
    el.dataset.side = w.side;
    if (!isStore) el.dataset.house = w.house;
    const hole = document.createElement('span');
    hole.className = 'hole';
    hole.appendChild(beads(count, isStore));
    el.appendChild(hole);
    const c = document.createElement('span');
    c.className = 'count';
    c.textContent = count;
    c.setAttribute('aria-hidden', 'true');
    el.appendChild(c);
    let label = `${binName(m, bin)}: ${count} seed${count === 1 ? '' : 's'}`;
    if (!isStore && !opts.editable) {
      el.type = 'button';
      const playable = w.side === opts.toMove && opts.legal && opts.legal.has(w.house);
      el.setAttribute('aria-disabled', playable ? 'false' : 'true');
      // Tab goes only to the houses that can be sown now (the others are read by their label).
      el.tabIndex = playable ? 0 : -1;
      el.classList.toggle('playable', !!playable);
      if (playable) label += `, press to sow${m <= 9 && opts.keys ? ` (key ${w.house})` : ''}`;
      el.addEventListener('click', () => {
        if (playable && opts.onSow) opts.onSow(w.house);
      });
    }
    const hint = !isStore && w.side === opts.toMove && opts.hints ? opts.hints.get(w.house) : null;
    if (hint) {
      el.appendChild(hintBadge(hint));
      label += `; hint: ${hint.exact ? 'exact value' : 'estimated value'} ${signed(hint.value)}${hint.best ? ', best' : ''}`;
    }
    if (opts.editable) {
      // Text, not a number field: only a text field tells its selection, which a redraw keeps.
      const inp = document.createElement('input');
      inp.type = 'text';
      inp.inputMode = 'numeric';
      inp.maxLength = 5;
      inp.autocomplete = 'off';
      inp.value = count;
      inp.className = 'edit';
      inp.setAttribute('aria-label', `${binName(m, bin)} seeds`);
      const commit = (v) => {
        const n = Math.max(0, Math.min(255, v));
        inp.value = n;
        if (opts.onEdit) opts.onEdit(bin, n, v);
      };
      // Digits only, as a number field kept them; 0 to 255 once changed.
      inp.addEventListener('beforeinput', (e) => {
        if (e.data && /\D/.test(e.data)) e.preventDefault();
      });
      inp.addEventListener('input', () => {
        if (/\D/.test(inp.value)) inp.value = inp.value.replace(/\D/g, '');
      });
      inp.addEventListener('change', () => commit(Number(inp.value) || 0));
      // Up and down step the count, as in a number field.
      inp.addEventListener('keydown', (e) => {
        if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
        e.preventDefault();
        commit((Number(inp.value) || 0) + (e.key === 'ArrowUp' ? 1 : -1));
        inp.select();
      });
      el.appendChild(inp);
      el.setAttribute('role', 'group');
    } else if (isStore) {
      el.setAttribute('role', 'img');
    }
    el.setAttribute('aria-label', label);
    return el;
  };

  const label = (side, where) => {
    const l = document.createElement('div');
    l.className = `rowlabel ${where}`;
    l.textContent = `${sideName(side)}${opts.names && opts.names[side] ? ` — ${opts.names[side]}` : ''}`;
    // The store's count beside the name, shown while the board scrolls (its store may be out of
    // sight: tester 103, South's store hidden on a phone until scrolled).
    const sc = document.createElement('span');
    sc.className = 'store-count';
    sc.textContent = ` · store ${opts.pits[side === 'S' ? m : 2 * m + 1]}`;
    l.appendChild(sc);
    if (side === opts.toMove) {
      l.classList.add('to-move');
      l.append(' ▸ to move');
    }
    return l;
  };
  const numbers = (side, where) => {
    const row = document.createElement('div');
    row.className = `numbers ${where}`;
    row.setAttribute('aria-hidden', 'true');
    for (let i = 0; i < m; i++) {
      const h = side === bottom ? i + 1 : m - i;
      const n = document.createElement('span');
      n.textContent = h;
      row.appendChild(n);
    }
    return row;
  };

  // Each hint again in a strip beside its row (above the top row, below the bottom one): the
  // style sheet shows the strip instead of the badges on the houses when these are too small
  // to hold them (many houses, a phone).
  const strip = (side, row) => {
    if (!opts.hints || side !== opts.toMove) return;
    for (let i = 0; i < m; i++) {
      const h = side === bottom ? i + 1 : m - i;
      const hint = opts.hints.get(h);
      const cell = document.createElement('div');
      cell.className = 'hintcell';
      cell.style.gridColumn = `${i + 2}`;
      cell.style.gridRow = String(row);
      if (hint) cell.appendChild(hintBadge(hint));
      grid.appendChild(cell);
    }
  };

  root.appendChild(label(top, 'top'));
  // The frame in a box of its own, which scrolls sideways when the board is wider than the
  // page allows (houses are at least a tap target wide: the style sheet).
  const scroller = document.createElement('div');
  scroller.className = 'scroller';
  const frame = document.createElement('div');
  frame.className = 'frame';
  frame.appendChild(numbers(top, 'top'));
  const grid = document.createElement('div');
  grid.className = 'grid';
  const topStore = pit(storeOf(m, top));
  topStore.classList.add('left');
  grid.appendChild(topStore);
  for (let i = 0; i < m; i++) {
    const e = pit(binOf(m, top, m - i));
    e.classList.add('row-top');
    e.style.gridColumn = `${i + 2}`;
    e.style.gridRow = '2';
    grid.appendChild(e);
  }
  for (let i = 0; i < m; i++) {
    const e = pit(binOf(m, bottom, i + 1));
    e.classList.add('row-bottom');
    e.style.gridColumn = `${i + 2}`;
    e.style.gridRow = '3';
    grid.appendChild(e);
  }
  strip(top, 1);
  strip(bottom, 4);
  const bottomStore = pit(storeOf(m, bottom));
  bottomStore.classList.add('right');
  grid.appendChild(bottomStore);
  frame.appendChild(grid);
  frame.appendChild(numbers(bottom, 'bottom'));
  scroller.appendChild(frame);
  root.appendChild(scroller);
  root.appendChild(label(bottom, 'bottom'));
  scroller.scrollLeft = scrolled;
  scroller.addEventListener('scroll', () => fitScroller(scroller), { passive: true });
  // Where a smooth scroll is heading is forgotten once it is there, or when the player scrolls
  // (a redraw then keeps the player's place).
  scroller.addEventListener('scrollend', () => {
    if (scroller.heading !== undefined && Math.abs(scroller.scrollLeft - scroller.heading) < 1) delete scroller.heading;
  });
  for (const type of ['wheel', 'touchstart', 'pointerdown', 'keydown']) {
    scroller.addEventListener(type, () => delete scroller.heading, { passive: true });
  }
  fitScroller(scroller);
  if (heading !== undefined) scrollBoxTo(scroller, heading, true);
  if (focus && focus.scroller && scroller.tabIndex === 0) {
    scroller.focus({ preventScroll: true });
  } else if (focus) {
    let el = focus.bin === undefined ? null : root.querySelector(`[data-bin="${focus.bin}"]`);
    if (el && focus.input) el = el.querySelector('input.edit');
    if (!el || el.tabIndex < 0) el = root.querySelector('button.pit.playable') || root;
    el.focus({ preventScroll: true });
    if (focus.input && el.matches('input.edit')) {
      el.value = focus.input.value;
      el.setSelectionRange(focus.input.from, focus.input.to);
    }
  }
}

/** Marks a board's scrolling box for what it shows: faded edges where more of the board is
 * that way; and, while it scrolls, a Tab stop of its own with a name, so that the keyboard can
 * scroll it too (a board whose houses cannot be sown has no other), and the board marked
 * `scrolls` (the stores' counts shown beside the names). */
function fitScroller(scroller) {
  const more = scroller.scrollWidth - scroller.clientWidth;
  scroller.parentElement?.classList.toggle('scrolls', more > 1);
  scroller.classList.toggle('more-left', more > 1 && scroller.scrollLeft > 1);
  scroller.classList.toggle('more-right', more > 1 && scroller.scrollLeft < more - 1);
  if (more > 1) {
    scroller.tabIndex = 0;
    scroller.setAttribute('role', 'region');
    scroller.setAttribute('aria-label', 'The board, wider than the screen: scroll it sideways');
  } else {
    scroller.removeAttribute('tabindex');
    scroller.removeAttribute('role');
    scroller.removeAttribute('aria-label');
  }
}

/** The width of a scrolling box's faded edges (the style sheet's `--fade`, 28 px). */
const FADE_PX = 28;

/** Scrolls a board's box (a board too wide for the screen scrolls sideways in it) so that the pit
 * `bin` is in view, clear of the faded edges: smoothly if `smooth`, else at once. Nothing when it
 * is in view already, or the board does not scroll. (The sowing animation follows the seeds so,
 * and ends with the last pit sown in view: seeds sown out of sight were not seen.) */
export function showPit(root, bin, smooth = false) {
  const scroller = root.querySelector('.scroller');
  const el = root.querySelector(`[data-bin="${bin}"]`);
  if (!scroller || !el) return;
  const more = scroller.scrollWidth - scroller.clientWidth;
  if (more <= 1) return;
  const now = scroller.scrollLeft;
  // Measured from where a smooth scroll on its way will be (one each seed, they overlap).
  const at = scroller.heading ?? now;
  const box = scroller.getBoundingClientRect();
  const pit = el.getBoundingClientRect();
  const left = pit.left - box.left - scroller.clientLeft + now;
  const right = left + pit.width;
  const edge = Math.max(0, Math.min(FADE_PX, (scroller.clientWidth - pit.width) / 2));
  let to = at;
  if (left - edge < at) to = left - edge;
  else if (right + edge > at + scroller.clientWidth) to = right + edge - scroller.clientWidth;
  to = Math.round(Math.max(0, Math.min(more, to)));
  if (Math.abs(to - at) < 1) return;
  scrollBoxTo(scroller, to, smooth);
}

/** Scrolls a board's box to `left`: smoothly (where it is heading is kept, for a redraw to go
 * on to it: `drawBoard`), or at once. */
function scrollBoxTo(scroller, left, smooth) {
  if (smooth) {
    scroller.heading = left;
    scroller.scrollTo({ left, behavior: 'smooth' });
  } else {
    delete scroller.heading;
    scroller.scrollLeft = left;
  }
}

// A change of the page's width (a phone turned) may make a board scroll, or stop.
if (typeof window !== 'undefined') {
  window.addEventListener('resize', () => {
    for (const s of document.querySelectorAll('.board .scroller')) fitScroller(s);
  });
}

/** A hint's badge: the value, ≈ before an estimate, solid when exact, outlined when best. */
function hintBadge(hint) {
  const h = document.createElement('span');
  h.className = `hint ${hint.exact ? 'exact' : 'estimate'}${hint.best ? ' best' : ''}`;
  if (!hint.exact) {
    const approx = document.createElement('span');
    approx.className = 'approx';
    approx.textContent = '≈';
    h.appendChild(approx);
  }
  h.appendChild(document.createTextNode(signed(hint.value)));
  h.title = hint.exact ? 'exact value with perfect play' : "the engine's estimate";
  h.setAttribute('aria-hidden', 'true');
  return h;
}

/** Sets one pit's count on a drawn board (for the sowing animation). */
export function setPit(root, bin, count, flash = '') {
  const el = root.querySelector(`[data-bin="${bin}"]`);
  if (!el) return;
  const hole = el.querySelector('.hole');
  hole.innerHTML = '';
  hole.appendChild(beads(count, el.classList.contains('store')));
  el.querySelector('.count').textContent = count;
  if (flash) {
    el.classList.remove('flash', 'capture', 'origin');
    void el.offsetWidth; // restart the CSS animation
    el.classList.add(flash);
  }
}
