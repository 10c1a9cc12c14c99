// npm run migrate [-- --wait]
//
// Applies the platform's migrations and those of every module TARGET names (all of them by default)
// to DATABASE_URL, or to the PGlite under DATA_DIR, under the advisory lock every start takes, then
// exits: the migration Job of k8s/ and the `migrate` service of docker-compose.yml. Every process
// still migrates its own modules at start (a no-op once this has run); running this first moves the
// schema change, and its failure, out of the services.
//
// With --wait it applies nothing: it exits once another process (the Job) has applied every
// migration this image holds for TARGET, trying again every 2 seconds while the database is away or
// behind. A Deployment's init container runs it, so no pod of a new image starts on an old schema.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, migrate, openDatabase, parseTarget, platformMigrations } from '@cliffhanger/platform';
import { registry } from '../gateway/src/registry.ts';

const { values } = parseArgs({ options: { wait: { type: 'boolean', default: false } } });

function configured() {
  try {
    const config = loadConfig();
    return { config, target: parseTarget(registry, config.TARGET) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

const { config, target } = configured();
/** Whose migrations, from where: the platform's first, as every start applies them. */
const owners = [
  { owner: 'platform', dir: platformMigrations },
  ...target.modules.flatMap((module) => (module.migrations ? [{ owner: module.name, dir: module.migrations }] : [])),
];

/**
 * The migrations of `owners` this image holds that the database has not recorded, as `owner/file`,
 * from a connection of its own: the database may be away, or not migrated at all yet.
 */
async function missing(): Promise<string[]> {
  const database = await openDatabase(config);
  try {
    const rows = await database.rawTransaction((session) => session.query<{ owner: string; version: string }>('select owner, version from platform.migrations'));
    const applied = new Set(rows.map((row) => `${row.owner}/${row.version}`));
    // The files migrate() applies: `0001_name.sql`, ...
    return owners.flatMap(({ owner, dir }) =>
      fs
        .readdirSync(dir)
        .filter((name) => /^\d{4}_[\w-]+\.sql$/.test(name) && !applied.has(`${owner}/${name}`))
        .sort()
        .map((name) => `${owner}/${name}`),
    );
  } finally {
    await database.close();
  }
}

async function waitForMigrations(): Promise<void> {
  let said = '';
  for (;;) {
    const state = await missing().then(
      (names) => (names.length ? `waiting for ${names.join(', ')}` : ''),
      (error: Error) => `waiting for the database: ${error.message}`,
    );
    if (!state) {
      console.log(`migrate: every migration of TARGET=${config.TARGET} is applied`);
      return;
    }
    if (state !== said) console.log(`migrate: ${state}`);
    said = state;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}

async function applyMigrations(): Promise<void> {
  const database = await openDatabase(config);
  try {
    for (const { owner, dir } of owners) {
      const applied = await migrate(database, owner, dir);
      console.log(`migrate: ${owner}: ${applied.length ? `applied ${applied.join(', ')}` : 'up to date'}`);
    }
  } finally {
    await database.close();
  }
}

await (values.wait ? waitForMigrations() : applyMigrations());
