// `npm run tail-events [-- --from-beginning] [--limit N] [--prefix cliffhanger]`: prints the event
// stream as it flows, one JSON line per event decoded with proto/ (id, type, time, userId,
// attribution, data, traceparent; with Kafka also topic, partition, offset and key). With
// KAFKA_BROKERS it follows every `cliffhanger.<family>` topic (creating, as the relay would, any
// that does not exist yet) and commits nothing; otherwise it follows platform.outbox in the
// Postgres bus's order (DATABASE_URL; an embedded site's PGlite only while that site is stopped).
// From now on unless --from-beginning; Ctrl-C stops it.
import { parseArgs } from 'node:util';
import { loadConfig, openDatabase, tailKafkaEvents, tailOutboxEvents } from '@cliffhanger/platform';

const { values } = parseArgs({
  options: {
    'from-beginning': { type: 'boolean', default: false },
    limit: { type: 'string' },
    prefix: { type: 'string', default: 'cliffhanger' },
  },
});
const limit = values.limit === undefined ? undefined : Number(values.limit);
if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) throw new Error(`--limit wants a positive whole number, not ${values.limit}`);

const config = loadConfig();
const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
const options = {
  fromBeginning: values['from-beginning'],
  limit,
  signal: stop.signal,
  print: (line: Record<string, unknown>) => void process.stdout.write(`${JSON.stringify(line)}\n`),
};

if (config.KAFKA_BROKERS) {
  await tailKafkaEvents({ ...options, brokers: config.KAFKA_BROKERS.split(','), clientId: config.KAFKA_CLIENT_ID, topicPrefix: values.prefix });
} else {
  const database = await openDatabase(config);
  try {
    await tailOutboxEvents(database, options);
  } finally {
    await database.close();
  }
}
