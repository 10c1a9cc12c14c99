#!/usr/bin/env bash
# `npm test`: type-check, lint, then every suite twice: on the embedded defaults (PGlite, the database
# job runner) and against real PostgreSQL and Redis; then the storefront end to end in Chromium.
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

server_projects=(--project platform --project user --project catalog --project analytics --project transcoder --project demo --project unlock --project payment --project gateway)

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

echo "== storefront end to end: the real site in Debian's Chromium"
npx vitest run --config storefront/vitest.e2e.config.ts --reporter=default --reporter=json --outputFile.json="$reports/e2e.json" || status=1

node scripts/test-summary.mjs "$reports"/*.json || status=1
exit $status
