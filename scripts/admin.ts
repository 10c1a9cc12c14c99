// `npm run admin -- grant EMAIL ROLE` gives a member a role (operator or admin; viewer takes it back),
// `npm run admin -- revoke EMAIL` makes them a viewer again: how the first operator is made, before
// anyone may call the admin API. Audited with actor "cli". On PostgreSQL (DATABASE_URL) it runs beside
// the services; an embedded site's PGlite is one process's own, so run it while that site is stopped.
import { ConfigError, loadConfig, migrate, openDatabase, platformMigrations, roles, type Role } from '@cliffhanger/platform';
import { setRoleByEmail, userMigrations } from '@cliffhanger/user';

const usage = 'usage: npm run admin -- grant EMAIL ROLE | revoke EMAIL   (ROLE: viewer, operator, admin)';

function command(): { email: string; role: Role } {
  const [verb, email, role] = process.argv.slice(2);
  if (verb === 'grant' && email && roles.includes(role as Role)) return { email, role: role as Role };
  if (verb === 'revoke' && email && role === undefined) return { email, role: 'viewer' };
  console.error(usage);
  process.exit(2);
}

const { email, role } = command();
let config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}
const database = await openDatabase(config);
try {
  // The embedded database of a site never started yet has no tables: the same migrations as a start.
  await migrate(database, 'platform', platformMigrations);
  await migrate(database, 'user', userMigrations);
  const user = await setRoleByEmail(database, email, role);
  console.log(`${user.email} (${user.id}) is now ${user.role}`);
} catch (error) {
  console.error((error as Error).message);
  process.exitCode = 1;
} finally {
  await database.close();
}
