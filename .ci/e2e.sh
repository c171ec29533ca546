#!/usr/bin/env bash
# Browser tests of `kalah serve`: installs Debian's Chromium and playwright-core (no browser
# download), builds the kalah binary, starts `kalah serve` on 127.0.0.1 (a free port), runs the
# tests in crates/kalah-web/e2e against it, stops the server. Exits non-zero if a test fails.
#
# Environment: KALAH_BIN (use this binary instead of building one), KALAH_SHOTS (where the
# screenshots go; default docs/screenshots), CARGO_TARGET_DIR (as cargo).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

echo "== e2e: browser"
if [ ! -x /usr/bin/chromium ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
fi
/usr/bin/chromium --version 2>/dev/null || true

echo "== e2e: playwright-core (browser download disabled)"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
(cd crates/kalah-web/e2e && npm ci --no-audit --no-fund --loglevel=error)

if [ -z "${KALAH_BIN:-}" ]; then
  echo "== e2e: building kalah (release)"
  cargo build --release -p kalah-cli
  KALAH_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/kalah"
fi

LOG=$(mktemp)
"$KALAH_BIN" serve --bind 127.0.0.1 --port 0 >"$LOG" 2>&1 &
SERVER=$!
cleanup() {
  kill "$SERVER" 2>/dev/null || true
  wait "$SERVER" 2>/dev/null || true
  rm -f "$LOG"
}
trap cleanup EXIT

URL=""
for _ in $(seq 1 100); do
  URL=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$LOG" | head -n1 || true)
  [ -n "$URL" ] && break
  if ! kill -0 "$SERVER" 2>/dev/null; then
    echo "kalah serve exited:"; cat "$LOG"; exit 1
  fi
  sleep 0.1
done
if [ -z "$URL" ]; then
  echo "kalah serve did not print its address:"; cat "$LOG"; exit 1
fi
echo "== e2e: server at $URL"

cd crates/kalah-web/e2e
KALAH_URL="$URL" KALAH_SHOTS="${KALAH_SHOTS:-$ROOT/docs/screenshots}" timeout --kill-after=10 1200 npm test
