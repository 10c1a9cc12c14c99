#!/usr/bin/env bash
# `npm test`: type-check, lint, then every suite twice: on the embedded defaults (PGlite, the database
# job runner) and against real PostgreSQL and Redis (but the files that touch neither); then the image
# in Docker, and the storefront end to end in Chromium.
# The Kafka adapter's suite runs on librdkafka's mock cluster (kcat) in both passes; under CI a
# missing kcat fails the run rather than letting that suite skip.
# Ends with one line: "npm test: N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/.."
reports=$(mktemp -d)
status=0

echo "== type-check"
npm run --silent typecheck || status=1

echo "== lint: import boundaries and declared workspace dependencies"
npm run --silent lint || status=1

if ! command -v kcat >/dev/null 2>&1; then
  if [ "${CI:-}" = "true" ]; then
    echo "the Kafka suite needs kcat (librdkafka's mock cluster), and CI must have it: apt-get install -y kcat" >&2
    status=1
  else
    echo "== no kcat: the Kafka suite on librdkafka's mock cluster is skipped (apt-get install -y kcat)"
  fi
fi

# The second pass's projects: every workspace with a suite of its own but the storefront's (a browser's
# code, with no server to point at), read from package.json's workspaces, so a new service is in both passes.
# A test file that says it touches no database, queue or cache (its line "// No database, queue or cache
# here") is left out of it: it would run the same twice. Vitest matches an exclusion inside every
# project, so such a file's name must be its own; the pass stops if two projects share one.
server_args=$(node -e '
  const fs = require("node:fs");
  const path = require("node:path");
  const marker = /^\/\/ No database, queue or cache here/m;
  const names = new Map();
  const excluded = [];
  for (const dir of require("./package.json").workspaces) {
    const config = `${dir}/vitest.config.ts`;
    if (dir === "storefront" || !fs.existsSync(config)) continue;
    const name = /name:\s*["\x27]([^"\x27]+)["\x27]/.exec(fs.readFileSync(config, "utf8"))?.[1];
    if (!name) continue;
    console.log(`--project=${name}`);
    for (const file of fs.readdirSync(`${dir}/test`, { recursive: true }).filter((file) => file.endsWith(".test.ts"))) {
      const relative = path.join("test", file);
      names.set(relative, [...(names.get(relative) ?? []), dir]);
      if (marker.test(fs.readFileSync(path.join(dir, relative), "utf8"))) excluded.push(relative);
    }
  }
  for (const relative of excluded) {
    if (names.get(relative).length > 1) {
      console.error(`${relative} is in ${names.get(relative).join(" and ")}: rename the one that touches no store`);
      process.exit(1);
    }
    console.log(`--exclude=**/${relative}`);
  }') || status=1
mapfile -t server_projects <<<"$server_args"

echo "== pass 1: embedded (PGlite, database job runner)"
npx vitest run --reporter=default --reporter=json --outputFile.json="$reports/embedded.json" || status=1

database_url=${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}
redis_url=${TEST_REDIS_URL:-redis://127.0.0.1:6379}
if node scripts/reachable.mjs "$database_url" "$redis_url"; then
  echo "== pass 2: real PostgreSQL ($database_url) and Redis ($redis_url) with BullMQ"
  TEST_DATABASE_URL=$database_url TEST_REDIS_URL=$redis_url \
    npx vitest run "${server_projects[@]}" --reporter=default --reporter=json --outputFile.json="$reports/servers.json" || status=1
elif [ "${CI:-}" = "true" ]; then
  echo "pass 2 needs PostgreSQL and Redis, and CI must have them" >&2
  status=1
else
  echo "== pass 2 skipped: no PostgreSQL at $database_url or no Redis at $redis_url (set TEST_DATABASE_URL / TEST_REDIS_URL)"
fi

echo "== the image: the Dockerfile built, run read-only as its own user in Docker (skipped without a Docker engine)"
TEST_DATABASE_URL=$database_url TEST_REDIS_URL=$redis_url \
  npx vitest run --config gateway/vitest.image.config.ts --reporter=default --reporter=json --outputFile.json="$reports/image.json" || status=1

echo "== storefront end to end: the real site in Debian's Chromium"
npx vitest run --config storefront/vitest.e2e.config.ts --reporter=default --reporter=json --outputFile.json="$reports/e2e.json" || status=1

node scripts/test-summary.mjs "$reports"/*.json || status=1
exit $status
