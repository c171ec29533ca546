// The page's client of the JSON API (docs/API.md). Every request is stateless: it carries the
// rules and the position (or the start and the moves).

/** An API error: `status` is the HTTP status, `message` the server's explanation. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** Sleeps `ms`, or less if `signal` is aborted meanwhile. */
const pause = (ms, signal) => new Promise((r) => {
  if (!signal || signal.aborted) {
    setTimeout(r, signal ? 0 : ms);
    return;
  }
  const done = () => {
    clearTimeout(t);
    signal.removeEventListener('abort', done);
    r();
  };
  const t = setTimeout(done, ms);
  signal.addEventListener('abort', done);
});

/** The longest wait for an answer beyond the request's own thinking time (`time_ms`). */
const ANSWER_GRACE_MS = 20000;
/** The longest pause before retrying a 503, whatever its Retry-After says. */
const MAX_RETRY_AFTER_S = 10;
/** The longest pause before the first retry of a 503. */
const FIRST_RETRY_MS = 300;

/**
 * POSTs `body` as JSON to `path` and returns the parsed answer. A 503 "busy" answer is retried
 * a few times after the server's Retry-After (at most 10 s; the first time after 0.3 s); any
 * other error throws an ApiError, and so does an answer that is not JSON or does not come
 * within the request's `time_ms` plus 20 s (status 0). `signal` (an AbortSignal) cancels the
 * request, or its pause before a retry: it then throws an ApiError with `cancelled` set, and
 * the server stops the search it was running for it. `onBusy`, if given, is called at each 503
 * before the pause (`EngineQueue` then cancels its background search, to free a slot).
 */
export async function post(path, body, { retries = 4, signal = null, onBusy = null } = {}) {
  const wait = (Number(body && body.time_ms) || 0) + ANSWER_GRACE_MS;
  const cancelled = () => {
    const e = new ApiError(0, 'the request was cancelled');
    e.cancelled = true;
    return e;
  };
  for (let attempt = 0; ; attempt++) {
    if (signal && signal.aborted) throw cancelled();
    let resp;
    let data = null;
    let timedOut = false;
    const abort = new AbortController();
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, wait);
    const onCancel = () => abort.abort();
    if (signal) signal.addEventListener('abort', onCancel);
    try {
      resp = await fetch(path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body ?? {}),
        signal: abort.signal,
      });
      try {
        data = await resp.json();
      } catch (e) {
        if (abort.signal.aborted) throw e;
        data = null;
      }
    } catch (e) {
      if (signal && signal.aborted) throw cancelled();
      if (timedOut) {
        throw new ApiError(0, `the server did not answer within ${Math.round(wait / 1000)} s`);
      }
      throw new ApiError(0, `cannot reach the server (${e.message}); is 'kalah serve' running?`);
    } finally {
      clearTimeout(timer);
      if (signal) signal.removeEventListener('abort', onCancel);
    }
    if (resp.ok) {
      if (data === null || typeof data !== 'object') {
        throw new ApiError(resp.status, `the server's answer to ${path} is not a JSON object`);
      }
      return data;
    }
    const message = (data && data.error) || `${resp.status} ${resp.statusText}`;
    if (resp.status === 503 && attempt < retries) {
      const after = Math.min(Number(resp.headers.get('Retry-After')) || 1, MAX_RETRY_AFTER_S);
      if (onBusy) onBusy();
      // The first retry comes sooner: a search this page has just cancelled (see EngineQueue)
      // gives its slot back within a few tenths of a second. (A cancelled request does not sit
      // out its pause: a job waiting so held up the engine's move that cancelled it.)
      await pause(attempt === 0 ? Math.min(after * 1000, FIRST_RETRY_MS) : after * 1000, signal);
      continue;
    }
    throw new ApiError(resp.status, message);
  }
}

/** GET /api/info. */
export async function info() {
  const resp = await fetch('/api/info');
  return resp.json();
}

/** The lowest priority of a foreground job (`EngineQueue`): the engine's move, a hint asked for
 * by the player, the analysis board. Below it, background jobs: the value graph's. */
export const FOREGROUND = 2;
/** How long after a search was cancelled no background job starts: the server stops a
 * cancelled search within a few tenths of a second, and until then it holds its slot. */
const CANCEL_GRACE_MS = 800;

/**
 * The page's engine requests (the server bounds concurrent searches; a page should not compete
 * with itself), in two lanes:
 * - Foreground (priority `FOREGROUND` or more: the engine's move, the player's hint, the
 *   analysis board): one at a time, the highest priority first. A job queued with a higher
 *   priority than the running one cancels it: the engine's move does not wait for a long hint
 *   search (tester 53). The cancelled job is queued again, to run afresh after it (dropping it
 *   lost values of the graph that nothing asked for again).
 * - Background (below `FOREGROUND`: the value graph): one at a time, started only while no
 *   foreground job runs or waits, and not within `CANCEL_GRACE_MS` of a cancelled search. One
 *   that runs is left to finish beside a foreground job (a slot each), unless the server
 *   answers the foreground request 503 (busy): the background job is then cancelled, and queued
 *   again. So the graph never takes both of a server's slots (it did: a search cancelled for
 *   the engine's move still held its slot while the next one started, and the engine's next
 *   move found the server busy).
 * A job is `fn(signal, onBusy)`: it should pass both to `post`, and may run more than once. A
 * dropped job's promise (see `clear`) rejects with `null`. A job may have a `rank()` too: its
 * priority now, asked each time the queue picks a job and when a cancelled job is queued again
 * (a hint of a position no longer shown goes to the background: tester 105, it ran in full, in
 * the foreground, before the hint of the position shown).
 */
export class EngineQueue {
  constructor({ graceMs = CANCEL_GRACE_MS } = {}) {
    this.jobs = [];
    this.current = null; // the foreground job running
    this.background = null; // the background job running
    this.graceMs = graceMs;
    this.quietUntil = 0; // no background job starts before (Date.now() time)
    this.timer = null;
  }
  /** Queues `fn` (returns a promise); resolves with its result. `rank`, if given, is the job's
   * priority when it is looked at again (see above). */
  run(fn, priority = 0, rank = null) {
    return new Promise((resolve, reject) => {
      this.jobs.push({ fn, priority, rank, resolve, reject, abort: new AbortController() });
      this.jobs.sort((a, b) => b.priority - a.priority);
      if (priority >= FOREGROUND && this.current && this.current.priority < priority) {
        this.current.preempted = true;
        this.cancel(this.current);
      }
      this.pump();
    });
  }
  /** Drops the queued jobs below `priority` and cancels the running ones below it. */
  clear(priority = Infinity) {
    const keep = [];
    for (const j of this.jobs) {
      if (j.priority >= priority) keep.push(j);
      else j.reject(null);
    }
    this.jobs = keep;
    for (const j of [this.current, this.background]) {
      if (j && j.priority < priority) {
        j.preempted = false;
        this.cancel(j);
      }
    }
  }
  /** Cancels the running background job to free its slot (a foreground request found the
   * server busy); it is queued again. */
  yieldBackground() {
    if (!this.background) return;
    this.background.preempted = true;
    this.cancel(this.background);
  }
  /** Cancels a running job. Its search holds a slot on the server until it stops there: no
   * background job starts meanwhile. */
  cancel(job) {
    if (job.abort.signal.aborted) return;
    job.abort.abort();
    this.quietUntil = Date.now() + this.graceMs;
  }
  /** The queued jobs' priorities as their `rank` says now, the highest first. */
  rerank() {
    for (const j of this.jobs) if (j.rank) j.priority = j.rank();
    this.jobs.sort((a, b) => b.priority - a.priority);
  }
  /** Starts what may start now. */
  pump() {
    this.rerank();
    if (!this.current && this.jobs.length && this.jobs[0].priority >= FOREGROUND) {
      this.start(this.jobs.shift(), 'current');
    }
    if (this.current || this.background || !this.jobs.length || this.jobs[0].priority >= FOREGROUND) return;
    const wait = this.quietUntil - Date.now();
    if (wait > 0) {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.pump(), wait);
      return;
    }
    this.start(this.jobs.shift(), 'background');
  }
  async start(job, lane) {
    this[lane] = job;
    const requeue = () => {
      job.preempted = false;
      job.abort = new AbortController();
      this.jobs.push(job);
      this.rerank();
    };
    // A foreground request that finds the server busy frees the slot of the page's background
    // search, if one runs.
    const onBusy = lane === 'current' ? () => this.yieldBackground() : null;
    try {
      const v = await job.fn(job.abort.signal, onBusy);
      if (!job.abort.signal.aborted) job.resolve(v);
      else if (job.preempted) requeue();
      else job.reject(null);
    } catch (e) {
      if (!job.abort.signal.aborted) job.reject(e);
      else if (job.preempted) requeue();
      else job.reject(null);
    } finally {
      this[lane] = null;
      this.pump();
    }
  }
}
