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

/**
 * POSTs `body` as JSON to `path` and returns the parsed answer. A 503 "busy" answer is retried
 * a few times after the server's Retry-After; any other error throws an ApiError.
 */
export async function post(path, body, { retries = 4 } = {}) {
  for (let attempt = 0; ; attempt++) {
    let resp;
    try {
      resp = await fetch(path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body ?? {}),
      });
    } catch (e) {
      throw new ApiError(0, `cannot reach the server (${e.message}); is 'kalah serve' running?`);
    }
    let data = null;
    try {
      data = await resp.json();
    } catch {
      data = null;
    }
    if (resp.ok) return data;
    const message = (data && data.error) || `${resp.status} ${resp.statusText}`;
    if (resp.status === 503 && attempt < retries) {
      const after = Number(resp.headers.get('Retry-After')) || 1;
      await sleep(after * 1000);
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
 * should not compete with itself). Jobs with a higher priority run first.
 */
export class EngineQueue {
  constructor() {
    this.jobs = [];
    this.running = false;
  }
  /** Queues `fn` (returns a promise); resolves with its result. */
  run(fn, priority = 0) {
    return new Promise((resolve, reject) => {
      this.jobs.push({ fn, priority, resolve, reject });
      this.jobs.sort((a, b) => b.priority - a.priority);
      this.pump();
    });
  }
  /** Drops the queued jobs below `priority` (their promises reject with `null`). */
  clear(priority = Infinity) {
    const keep = [];
    for (const j of this.jobs) {
      if (j.priority >= priority) keep.push(j);
      else j.reject(null);
    }
    this.jobs = keep;
  }
  async pump() {
    if (this.running) return;
    const job = this.jobs.shift();
    if (!job) return;
    this.running = true;
    try {
      job.resolve(await job.fn());
    } catch (e) {
      job.reject(e);
    } finally {
      this.running = false;
      this.pump();
    }
  }
}
