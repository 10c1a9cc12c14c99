#!/usr/bin/env bash
# `npm run bench`: every benchmark in bench/, each printing one line with its ratio against a
# baseline measured in the same run, then the storefront's initial JavaScript budget.
set -euo pipefail
cd "$(dirname "$0")/.."
node scripts/build-if-stale.mjs
status=0
for bench in bench/*.bench.ts; do
  npx tsx "$bench" || status=1
done
node storefront/bench/bundle-size.mjs || status=1
exit $status
