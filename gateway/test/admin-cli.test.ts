import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, migrate, openDatabase, platformMigrations, queryRows, type Database } from '@cliffhanger/platform';
import { createScratchDatabase, outboxEvents, realDatabaseUrl, tempDir } from '@cliffhanger/platform/testing';
import { userMigrations } from '@cliffhanger/user';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// `npm run admin`, on the embedded database (DATA_DIR) or on PostgreSQL (DATABASE_URL) as the suite runs.
const dataDir = tempDir('admin-cli-');
let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | null = null;
let env: Record<string, string>;
beforeAll(async () => {
  scratch = realDatabaseUrl ? await createScratchDatabase() : null;
  env = { NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir, ...(scratch && { DATABASE_URL: scratch.url }) };
  await withDatabase(async (database) => {
    await migrate(database, 'platform', platformMigrations);
    await migrate(database, 'user', userMigrations);
    await database.db.execute(sql`
      insert into users.users (id, kind, email, registered_at) values ('first-operator', 'member', 'Ops@Example.com', now()), ('a-guest', 'guest', null, null)`);
  });
}, 60_000);
afterAll(() => scratch?.drop());

/** The database the script works on, opened only while it does not run: an embedded PGlite is one process's own. */
async function withDatabase<T>(work: (database: Database) => Promise<T>): Promise<T> {
  const database = await openDatabase(loadConfig(env));
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

async function admin(...args: string[]) {
  const { PATH, HOME } = process.env;
  return run('node', ['--import', 'tsx', 'scripts/admin.ts', ...args], { cwd: root, env: { PATH, HOME, ...env } }).then(
    ({ stdout }) => ({ code: 0, out: stdout }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, out: error.stdout + error.stderr }),
  );
}

const roleOf = (id: string) => withDatabase(async (database) => (await queryRows<{ role: string }>(database.db, sql`select role from users.users where id = ${id}`))[0]?.role);

describe('npm run admin', () => {
  it('grants a member a role by email (any case) and revokes it, each audited as "cli"', async () => {
    expect(await admin('grant', 'ops@example.com', 'operator')).toMatchObject({ code: 0, out: expect.stringContaining('is now operator') });
    expect(await roleOf('first-operator')).toBe('operator');
    expect(await admin('revoke', 'ops@example.com')).toMatchObject({ code: 0, out: expect.stringContaining('is now viewer') });
    expect(await roleOf('first-operator')).toBe('viewer');

    const audits = await withDatabase((database) => outboxEvents(database.db, 'admin.audited'));
    expect(audits.map((event) => event.data)).toEqual([
      { actor: 'cli', action: 'user.role', target: 'user:first-operator', beforeJson: '{"role":"viewer"}', afterJson: '{"role":"operator"}' },
      { actor: 'cli', action: 'user.role', target: 'user:first-operator', beforeJson: '{"role":"operator"}', afterJson: '{"role":"viewer"}' },
    ]);
  }, 120_000);

  it('refuses an unknown email, an unknown role and a wrong command, changing nothing', async () => {
    expect(await admin('grant', 'nobody@example.com', 'admin')).toMatchObject({ code: 1, out: expect.stringContaining('No member has the email nobody@example.com') });
    expect(await admin('grant', 'ops@example.com', 'boss')).toMatchObject({ code: 2, out: expect.stringContaining('usage: npm run admin') });
    expect(await admin('promote', 'ops@example.com')).toMatchObject({ code: 2 });
    expect(await roleOf('first-operator')).toBe('viewer');
  }, 120_000);
});
