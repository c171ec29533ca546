// Unit tests of the page's request queue (assets/api.js), run by node itself: no browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EngineQueue, post } from '../../assets/api.js';

/** A job that records its runs and ends with `value` after `ms`, or when cancelled. */
function job(log, name, value, ms = 50) {
  return (signal) => new Promise((resolve, reject) => {
    log.push(`start ${name}`);
    const t = setTimeout(() => {
      log.push(`end ${name}`);
      resolve(value);
    }, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      log.push(`cancel ${name}`);
      reject(new Error('aborted'));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test('a job cancelled by a more urgent one runs again after it, and its promise gets the answer', async () => {
  const q = new EngineQueue();
  const log = [];
  const hint = q.run(job(log, 'hint', 'h'), 2);
  const urgent = q.run(job(log, 'engine', 'e'), 3);
  assert.equal(await urgent, 'e');
  // Was: the cancelled job's promise rejected and its value was never asked for again.
  assert.equal(await hint, 'h');
  assert.deepEqual(log, ['start hint', 'cancel hint', 'start engine', 'end engine', 'start hint', 'end hint']);
});

test('background jobs: one at a time, none started while a foreground job runs or waits; one running goes on beside it', async () => {
  const q = new EngineQueue();
  const log = [];
  const done = [];
  // Three values for the graph, then the engine's move while the first is searched.
  for (const name of ['g1', 'g2', 'g3']) done.push(q.run(job(log, name, name, 60), 0));
  await sleep(10);
  done.push(q.run(job(log, 'engine', 'e', 100), 3));
  // The engine's move does not wait for g1, nor cancel it (it has a slot of its own); g2 waits
  // for the engine's move (was: it started as soon as g1 was cancelled, whose search still held
  // its slot on the server).
  assert.deepEqual(await Promise.all(done), ['g1', 'g2', 'g3', 'e']);
  assert.deepEqual(log, ['start g1', 'start engine', 'end g1', 'end engine', 'start g2', 'end g2', 'start g3', 'end g3']);
});

test('a foreground request that finds the server busy cancels the background job, which runs again after it, not at once', async () => {
  const q = new EngineQueue({ graceMs: 300 });
  const log = [];
  const at = {};
  const graph = q.run((signal) => {
    at[`graph ${Object.keys(at).length ? 'again' : 'first'}`] = Date.now();
    return job(log, 'graph', 'g', 200)(signal);
  }, 0);
  await sleep(10);
  const engine = q.run(async (signal, onBusy) => {
    log.push('start engine');
    onBusy(); // (as `post` does at a 503, before it asks again)
    at.cancelled = Date.now();
    await sleep(50);
    log.push('end engine');
    return 'e';
  }, 3);
  assert.equal(await engine, 'e');
  assert.equal(await graph, 'g');
  assert.deepEqual(log, ['start graph', 'start engine', 'cancel graph', 'end engine', 'start graph', 'end graph']);
  // Not at the end of the engine's request: the cancelled search may still hold its slot.
  assert.ok(at['graph again'] - at.cancelled >= 290, `started again ${at['graph again'] - at.cancelled} ms after it was cancelled`);
});

test('a request cancelled while it waits to ask again after a 503 stops waiting at once', async () => {
  const real = globalThis.fetch;
  let busy = 0;
  globalThis.fetch = async () => new Response(JSON.stringify({ error: 'busy' }), { status: 503, headers: { 'Retry-After': '5' } });
  try {
    const abort = new AbortController();
    const started = Date.now();
    const asked = post('/api/analyze', {}, { signal: abort.signal, onBusy: () => busy++ });
    await sleep(500); // past the first retry (0.3 s), into the wait of 5 s
    abort.abort();
    await assert.rejects(asked, (e) => e.cancelled === true);
    // Was: the wait went on to its end, and the engine's move that cancelled it waited too.
    assert.ok(Date.now() - started < 1500, `cancelled after ${Date.now() - started} ms`);
    assert.equal(busy, 2);
  } finally {
    globalThis.fetch = real;
  }
});

test('clear drops the queued and the running jobs: their promises reject with null', async () => {
  const q = new EngineQueue();
  const log = [];
  const running = q.run(job(log, 'a', 1), 1);
  const queued = q.run(job(log, 'b', 2), 0);
  q.clear();
  await Promise.all([assert.rejects(running, (e) => e === null), assert.rejects(queued, (e) => e === null)]);
  assert.deepEqual(log, ['start a', 'cancel a']);
  // A job cancelled by a more urgent one and then dropped is not run again.
  const low = q.run(job(log, 'c', 3), 2);
  const urgent = q.run(job(log, 'd', 4), 3);
  q.clear(3);
  const dropped = assert.rejects(low, (e) => e === null);
  assert.equal(await urgent, 4);
  await dropped;
  assert.deepEqual(log.slice(2), ['start c', 'cancel c', 'start d', 'end d']);
});

test('a job that fails by itself rejects with its error, and the next job runs', async () => {
  const q = new EngineQueue();
  const bad = q.run(async () => { throw new Error('made to fail'); }, 1);
  const next = q.run(async () => 'ok', 0);
  await assert.rejects(bad, /made to fail/);
  assert.equal(await next, 'ok');
});

test('a job whose rank falls while it waits (a hint of a position no longer shown) runs in the background, not before the foreground ones', async () => {
  const q = new EngineQueue({ graceMs: 0 });
  const log = [];
  let shown = 'a';
  const rank = (pos) => () => (shown === pos ? 2 : 0);
  const hintA = q.run(job(log, 'hint a', 'a'), 2, rank('a'));
  await sleep(10);
  // The engine's move cancels the hint of position a; then position b is shown, and its hint
  // asked for.
  const engine = q.run(job(log, 'engine', 'e'), 3);
  shown = 'b';
  assert.equal(await engine, 'e');
  const hintB = q.run(job(log, 'hint b', 'b'), 2, rank('b'));
  assert.deepEqual(await Promise.all([hintA, hintB]), ['a', 'b']);
  // Was: a, queued again in the foreground, ran in full before b started. Now it runs again in
  // the background (beside b, a slot each), b not waiting for it.
  assert.deepEqual(log.slice(0, 4), ['start hint a', 'cancel hint a', 'start engine', 'end engine']);
  assert.ok(log.indexOf('start hint b') < log.lastIndexOf('end hint a'), log.join(', '));
  // A hint of the position shown again is in the foreground again.
  shown = 'a';
  const bg = q.run(job(log, 'graph', 'g', 80), 0);
  const again = q.run(job(log, 'hint a again', 'a2'), 2, rank('a'));
  assert.deepEqual(await Promise.all([bg, again]), ['g', 'a2']);
});
