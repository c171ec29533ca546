// The value graph: the value of the position after every move, from South's view (above the
// line: South is ahead with perfect play), filled dots exact, hollow dots estimated.

const NS = 'http://www.w3.org/2000/svg';
const el = (name, attrs) => {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
};

/**
 * Draws into `root`. `values[i]` is {v, exact} or undefined for the position after i actions
 * (single sowings); `cursor` marks the position shown; `onJump(i)` is called when a point is
 * clicked. `names` says the positions in the move list's terms (whole turns): `names.at(i)`
 * ("the position after turn 2"), `names.end` (the axis's last label, "turn 5").
 */
export function drawGraph(root, values, cursor, onJump, names) {
  const n = values.length - 1;
  const W = 320, H = 140, padL = 30, padR = 8, padT = 10, padB = 18;
  const known = values.filter(Boolean).map((x) => Math.abs(x.v));
  const span = Math.max(4, ...known);
  const x = (i) => padL + (n === 0 ? 0 : (i / n) * (W - padL - padR));
  const y = (v) => padT + ((span - v) / (2 * span)) * (H - padT - padB);
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'graph', role: 'img' });
  const summary = values
    .map((p, i) => (p ? `${names.at(i)} ${p.v > 0 ? '+' : ''}${p.v}${p.exact ? '' : ' (estimate)'}` : null))
    .filter(Boolean);
  // (The last 12 values known, and said so: it read as if they were all.)
  const shown = summary.length > 12 ? `the last 12 of ${summary.length} positions valued: ${summary.slice(-12).join('; ')}` : summary.join('; ');
  svg.setAttribute('aria-label', `Value for South after each move: ${shown || 'not known yet'}`);
  svg.appendChild(el('rect', { x: padL, y: padT, width: W - padL - padR, height: (H - padT - padB) / 2, class: 'south-zone' }));
  svg.appendChild(el('line', { x1: padL, x2: W - padR, y1: y(0), y2: y(0), class: 'zero' }));
  for (const v of [span, 0, -span]) {
    const t = el('text', { x: padL - 4, y: y(v) + 4, class: 'tick', 'text-anchor': 'end' });
    t.textContent = v > 0 ? `+${v}` : `${v}`;
    svg.appendChild(t);
  }
  const lbl = el('text', { x: W - padR, y: H - 4, class: 'tick', 'text-anchor': 'end' });
  lbl.textContent = names.end;
  svg.appendChild(lbl);
  svg.appendChild(el('line', { x1: x(cursor), x2: x(cursor), y1: padT, y2: H - padB, class: 'cursor' }));
  let d = '';
  values.forEach((p, i) => {
    if (!p) return;
    d += `${d && values[i - 1] ? 'L' : 'M'}${x(i).toFixed(1)},${y(p.v).toFixed(1)} `;
  });
  if (d) svg.appendChild(el('path', { d, class: 'line' }));
  values.forEach((p, i) => {
    if (!p) return;
    const c = el('circle', { cx: x(i), cy: y(p.v), r: n > 60 ? 2 : 3.2, class: p.exact ? 'pt exact' : 'pt estimate' });
    const title = el('title', {});
    const at = names.at(i);
    title.textContent = `${at.charAt(0).toUpperCase()}${at.slice(1)}: ${p.v > 0 ? '+' : ''}${p.v} for South${p.exact ? ' (exact)' : ' (estimate)'}`;
    c.appendChild(title);
    c.addEventListener('click', () => onJump && onJump(i));
    svg.appendChild(c);
  });
  root.innerHTML = '';
  root.appendChild(svg);
}
