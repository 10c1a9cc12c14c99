// `npm run replay-events [-- EVENT_ID ...]`: asks the consumers to try set-aside events again (all of
// them without ids), the same as POST /api/admin/events/replay; the consumers' processes replay them.
// On PostgreSQL (DATABASE_URL) it runs beside the services; an embedded site's PGlite is one
// process's own, so there use the admin API while it runs, or this script while it is stopped.
import { listDeadEvents, loadConfig, openDatabase, requestReplay } from '@cliffhanger/platform';

const ids = process.argv.slice(2);
const database = await openDatabase(loadConfig());
try {
  const dead = await listDeadEvents(database.db, 1000);
  for (const event of dead) console.log(`${event.eventId}  ${event.consumer}  ${event.type}  ${event.failedAt}  ${event.error}`);
  const replayed = await requestReplay(database.db, ids.length ? ids : undefined);
  console.log(`${replayed} dead event${replayed === 1 ? '' : 's'} put back for replay`);
} finally {
  await database.close();
}
