#!/usr/bin/env bash
# Browser automation benchmark (issue 6, point 7): the same flow driven by
# meith's tools over the socket and by Playwright (playwright-core) on the
# same /usr/bin/chromium, alternating in one run: open a tab at a local
# page, click an element, take a screenshot, close the tab. Builds the
# headless binary, runs `meith serve --grant-cli controls-browser` with
# temporary MEITH_HOME/MEITH_USER_DATA, and runs bench/browser.mjs.
#
#   bash bench/browser.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
RUNS=${1:-20}
serve_headless controls-browser,accesses-network
MEITH_BENCH_SOCKET=$sock MEITH_BENCH_RUNS=$RUNS MEITH_BENCH_SERVE_PID=$srv \
  NODE_PATH=frontend/node_modules node bench/browser.mjs
