import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { Kafka, logLevel } from 'kafkajs';
import { pino, type Logger } from 'pino';
import { queryRows, type Database } from '../db/database.ts';
import { eventsFromRow, outboxColumns, type OutboxRow } from './events.ts';
import { kafkaLogTo } from './kafka-bus.ts';
import { decodeEvent, eventTopics, headerOf } from './wire.ts';

/** How `npm run tail-events` follows the stream: it reads and prints, and commits or changes nothing. */
export interface TailOptions {
  /** Every event still kept, not only those from now on. */
  fromBeginning?: boolean;
  /** Stop after printing this many events. */
  limit?: number;
  signal: AbortSignal;
  print(line: Record<string, unknown>): void;
}

/** Follows every event topic until the signal or the limit; answers how many events it printed. */
export async function tailKafkaEvents(
  options: TailOptions & { brokers: string[]; clientId: string; topicPrefix?: string; logger?: Logger },
): Promise<number> {
  // Warnings go to stderr by default, so stdout stays one JSON event per line.
  const logger = options.logger ?? pino({ name: 'tail-events', level: 'warn' }, pino.destination(2));
  const kafka = new Kafka({ clientId: options.clientId, brokers: options.brokers, logLevel: logLevel.WARN, logCreator: kafkaLogTo(logger) });
  // A group of its own that never commits: the tail leaves no offsets and takes no partition from a consumer.
  const consumer = kafka.consumer({ groupId: `${options.clientId}-tail-${randomUUID()}` });
  const limit = options.limit ?? Infinity;
  let printed = 0;
  let finish = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
    options.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: eventTopics(options.topicPrefix), fromBeginning: options.fromBeginning ?? false });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ topic, partition, message }) => {
        if (printed >= limit) return;
        const where = { topic, partition, offset: Number(message.offset), key: message.key?.toString() ?? null };
        try {
          options.print({ ...where, ...decodeEvent(message.value, message.headers) });
        } catch (error) {
          options.print({ ...where, type: headerOf(message.headers, 'ce-type') ?? null, error: (error as Error).message });
        }
        printed += 1;
        if (printed >= limit) finish();
      },
    });
    await finished;
  } finally {
    await consumer.disconnect();
  }
  return printed;
}

/** Follows platform.outbox in the Postgres bus's order (`seq`, as its relay numbers events). */
export async function tailOutboxEvents(database: Database, options: TailOptions & { pollMs?: number }): Promise<number> {
  const limit = options.limit ?? Infinity;
  const [top] = await queryRows<{ seq: string | number }>(database.db, sql`select coalesce(max(seq), 0) as seq from platform.outbox`);
  let position = options.fromBeginning ? 0 : Number(top?.seq ?? 0);
  let printed = 0;
  while (!options.signal.aborted && printed < limit) {
    const rows = await queryRows<OutboxRow>(
      database.db,
      sql`select ${outboxColumns} from platform.outbox where seq > ${position} order by seq limit ${Math.min(500, limit - printed)}`,
    );
    for (const row of rows) {
      // A batch row's events (the pixel's hits) share its position.
      for (const event of eventsFromRow(row)) {
        if (printed >= limit) break;
        options.print({ seq: Number(row.seq), ...event });
        printed += 1;
      }
      position = Number(row.seq);
    }
    if (rows.length === 0) await sleep(options.pollMs ?? 500, undefined, { signal: options.signal }).catch(() => {});
  }
  return printed;
}
