// Unit tests of the page's request queue (assets/api.js), run by node itself: no browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EngineQueue } from '../../assets/api.js';

/** A job that records its runs and ends with `value` after `ms`, or when cancelled. */
function job(log, name, value, ms = 50) {
  return (signal) => new Promise((resolve, reject) => {
    log.push(`start ${name}`);
    const t = setTimeout(() => resolve(value), ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      log.push(`cancel ${name}`);
      reject(new Error('aborted'));
    });
  });
}

test('a job cancelled by a more urgent one runs again after it, and its promise gets the answer', async () => {
  const q = new EngineQueue();
  const log = [];
  const low = q.run(job(log, 'graph', 'g'), 0);
  const urgent = q.run(job(log, 'engine', 'e'), 3);
  assert.equal(await urgent, 'e');
  // Was: the cancelled job's promise rejected and its value was never asked for again.
  assert.equal(await low, 'g');
  assert.deepEqual(log, ['start graph', 'cancel graph', 'start engine', 'start graph']);
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
  const low = q.run(job(log, 'c', 3), 0);
  const urgent = q.run(job(log, 'd', 4), 3);
  q.clear(3);
  const dropped = assert.rejects(low, (e) => e === null);
  assert.equal(await urgent, 4);
  await dropped;
  assert.deepEqual(log.slice(2), ['start c', 'cancel c', 'start d']);
});

test('a job that fails by itself rejects with its error, and the next job runs', async () => {
  const q = new EngineQueue();
  const bad = q.run(async () => { throw new Error('made to fail'); }, 1);
  const next = q.run(async () => 'ok', 0);
  await assert.rejects(bad, /made to fail/);
  assert.equal(await next, 'ok');
});
