// Shared helpers of the browser tests: launch Debian's Chromium headless through playwright-core
// (no browser download), open the page served by `kalah serve` at $KALAH_URL.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BASE = process.env.KALAH_URL || 'http://127.0.0.1:8080';
export const SHOTS = process.env.KALAH_SHOTS || join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'screenshots');
const EXE = process.env.CHROMIUM || '/usr/bin/chromium';

/** Launches a fresh browser (own profile directory); returns {browser, close}. */
export async function launch() {
  const profile = mkdtempSync(join(tmpdir(), 'kalah-e2e-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: EXE,
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  // For work on the page: KALAH_ASSETS=DIR serves the page (index.html and /assets/*) from DIR
  // rather than the copy built into the server, so a change needs no rebuild. CI leaves it unset.
  const assets = process.env.KALAH_ASSETS;
  if (assets) {
    const TYPES = { js: 'text/javascript', css: 'text/css', html: 'text/html', svg: 'image/svg+xml' };
    await context.route((url) => url.pathname === '/' || url.pathname.startsWith('/assets/'), (route) => {
      const path = new URL(route.request().url()).pathname;
      const name = path === '/' ? 'index.html' : path.slice('/assets/'.length);
      route.fulfill({ status: 200, contentType: TYPES[name.split('.').pop()], body: readFileSync(join(assets, name)) });
    });
  }
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A new page at the app, waiting until it has loaded its game; localStorage and
 * sessionStorage cleared first if `fresh`. */
export async function openApp(context, { fresh = true } = {}) {
  const page = context.pages()[0] || (await context.newPage());
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.errors = errors;
  if (fresh) {
    // Cleared from a page of the same origin that runs no script of the app: cleared from the
    // app itself, a save of its (still booting) game could come after the clear, and its tab's
    // analysis board (sessionStorage) came back with it (a test timed out so).
    await page.goto(BASE + '/api/info');
    await page.evaluate(() => { localStorage.clear(); sessionStorage.clear(); });
  }
  await page.goto(BASE + '/');
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

/** Sets the sowing speed (instant makes the tests fast). */
export async function setSpeed(page, speed) {
  await page.selectOption('#speed', speed);
}

/** Waits until the page is idle: a human is to move or the game is over. */
export async function waitIdle(page, timeout = 60000) {
  await page.waitForFunction(
    () => {
      const st = document.getElementById('status').textContent;
      return document.body.dataset.busy === 'false' && /Your move|to move:|Game over/.test(st) && !/thinking/.test(st);
    },
    null,
    { timeout },
  );
}

/** Presses Start in the open New game dialog and waits until it is closed. A game in progress
 * is replaced only once the page's question is answered: "Start the new game". */
export async function startNewGame(page) {
  await page.click('#new-start');
  const asked = () => !!document.getElementById('dlg-replace')?.open;
  await page.waitForFunction(() => !document.getElementById('dlg-new').open || !!document.getElementById('dlg-replace')?.open);
  if (await page.evaluate(asked)) await page.click('#replace-start');
  await page.waitForSelector('#dlg-new', { state: 'hidden' });
}

/** Presses "Load this record" in the open Export / import dialog and waits until it is closed,
 * answering the page's question before it replaces a game in progress: "Load the record". */
export async function loadRecord(page) {
  await page.click('#rec-import');
  await page.waitForFunction(() => !document.getElementById('dlg-records').open || document.getElementById('dlg-replace').open);
  if (await page.$eval('#dlg-replace', (d) => d.open)) await page.click('#replace-start');
  await page.waitForSelector('#dlg-records', { state: 'hidden' });
}

/** Presses the analysis board's "Play from here" and waits until the board is closed,
 * answering the page's question before it replaces a game in progress: "Play from here". */
export async function playFromHere(page) {
  await page.click('#an-play');
  await page.waitForFunction(() => document.getElementById('analysis-panel').hidden || document.getElementById('dlg-replace').open);
  if (await page.$eval('#dlg-replace', (d) => d.open)) await page.click('#replace-start');
  await page.waitForSelector('#analysis-panel', { state: 'hidden' });
}

export async function screenshot(page, name) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, name), fullPage: true });
}
