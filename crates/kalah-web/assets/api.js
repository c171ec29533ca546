// The page's client of the JSON API (docs/API.md). Every request is stateless: it carries the
// rules and the position (or the start and the moves).

/** An API error: `status` is the HTTP status, `message` the server's explanation. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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
 * request: it then throws an ApiError with `cancelled` set, and the server stops the search it
 * was running for it.
 */
export async function post(path, body, { retries = 4, signal = null } = {}) {
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
      // The first retry comes sooner: a search this page has just cancelled (see EngineQueue)
      // gives its slot back within a few tenths of a second.
      await sleep(attempt === 0 ? Math.min(after * 1000, FIRST_RETRY_MS) : after * 1000);
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

/**
 * One engine request at a time from this page (the server bounds concurrent searches; a page
 * should not compete with itself). Jobs with a higher priority run first, and a job queued
 * with a higher priority than the running one cancels it: the engine's move does not wait for
 * a long hint search (tester 53). The cancelled job is queued again, to run afresh after it
 * (dropping it lost values of the graph that nothing asked for again). A job is `fn(signal)`:
 * it should pass the AbortSignal to `post`, and may run more than once. A dropped job's
 * promise (see `clear`) rejects with `null`.
 */
export class EngineQueue {
  constructor() {
    this.jobs = [];
    this.current = null;
  }
  /** Queues `fn` (returns a promise); resolves with its result. */
  run(fn, priority = 0) {
    return new Promise((resolve, reject) => {
      this.jobs.push({ fn, priority, resolve, reject, abort: new AbortController() });
      this.jobs.sort((a, b) => b.priority - a.priority);
      if (this.current && this.current.priority < priority) {
        this.current.preempted = true;
        this.current.abort.abort();
      }
      this.pump();
    });
  }
  /** Drops the queued jobs below `priority` and cancels the running one if it is below it. */
  clear(priority = Infinity) {
    const keep = [];
    for (const j of this.jobs) {
      if (j.priority >= priority) keep.push(j);
      else j.reject(null);
    }
    this.jobs = keep;
    if (this.current && this.current.priority < priority) {
      this.current.preempted = false;
      this.current.abort.abort();
    }
  }
  async pump() {
    if (this.current) return;
    const job = this.jobs.shift();
    if (!job) return;
    this.current = job;
    const requeue = () => {
      job.preempted = false;
      job.abort = new AbortController();
      this.jobs.push(job);
      this.jobs.sort((a, b) => b.priority - a.priority);
    };
    try {
      const v = await job.fn(job.abort.signal);
      if (!job.abort.signal.aborted) job.resolve(v);
      else if (job.preempted) requeue();
      else job.reject(null);
    } catch (e) {
      if (!job.abort.signal.aborted) job.reject(e);
      else if (job.preempted) requeue();
      else job.reject(null);
    } finally {
      this.current = null;
      this.pump();
    }
  }
}
