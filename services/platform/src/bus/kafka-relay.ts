import { context } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { sql } from 'drizzle-orm';
import { CompressionTypes, type Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { queryRows, type Database, type Executor } from '../db/database.ts';
import { setAsideDeadEvent } from './delivery.ts';
import { eventsFromRow, outboxColumns, type EventType, type OutboxRow } from './events.ts';
import { chunkByBytes, messageBytes, refusesRecords, type Outgoing } from './kafka-batches.ts';
import { encodeEvent, topicOf } from './wire.ts';

const RELAY_LOCK = 72_617_004;
const ROWS = 200;
/** On an event that travelled in a batch row: that row's event id, where a dead letter finds it again. */
export const OUTBOX_ID_HEADER = 'cliffhanger-outbox-id';
/** The consumer name under which the relay keeps, in platform.dead_events, what it could never send. */
export const RELAY_CONSUMER = 'kafka-relay';

export interface RelayOptions {
  prefix: string;
  /** The most bytes (before compression) one produce call carries, under the broker's `message.max.bytes`. */
  maxBytes: number;
  compression: 'gzip' | 'none';
}

interface Refused {
  eventId: string;
  outboxId?: string;
  error: unknown;
}

/**
 * Publishes committed outbox rows to Kafka in id order, one relay at a time (an advisory lock), and
 * marks them published: at least once, since a crash between send and mark sends them again and
 * consumers drop the duplicate by event id. One round takes rows up to about `maxBytes` of events
 * and sends them in produce calls of at most `maxBytes` each, a pixel batch of thousands of hits
 * over several. An event that can never go (it does not encode, it is over the bound alone, the
 * broker refuses it) is set aside in platform.dead_events under `kafka-relay` and the rest goes on:
 * one bad record never holds up the others. Answers whether more rows are waiting.
 */
export function createKafkaRelay(database: Database, logger: Logger, producer: () => Producer, options: RelayOptions) {
  const compression = options.compression === 'gzip' ? CompressionTypes.GZIP : CompressionTypes.None;

  /** The row's events ready to send; those that cannot be are added to `refused`. */
  function encodeRow(row: OutboxRow, refused: Refused[]): Outgoing[] {
    let events;
    try {
      events = eventsFromRow(row);
    } catch (error) {
      refused.push({ eventId: row.event_id, error });
      return [];
    }
    const outgoing: Outgoing[] = [];
    for (const event of events) {
      const outboxId = event.id === row.event_id ? undefined : row.event_id;
      try {
        const message = encodeEvent(event);
        if (outboxId) message.headers[OUTBOX_ID_HEADER] = outboxId;
        const bytes = messageBytes(message);
        if (bytes > options.maxBytes) throw new Error(`an event of ${bytes} bytes, over the ${options.maxBytes} one produce call may carry (KAFKA_BATCH_MAX_BYTES)`);
        outgoing.push({ topic: topicOf(row.type as EventType, options.prefix), message, eventId: event.id, outboxId, bytes });
      } catch (error) {
        refused.push({ eventId: event.id, outboxId, error });
      }
    }
    return outgoing;
  }

  async function send(chunk: Outgoing[]): Promise<void> {
    const byTopic = new Map<string, Outgoing['message'][]>();
    for (const { topic, message } of chunk) byTopic.set(topic, [...(byTopic.get(topic) ?? []), message]);
    // Untraced: kafkajs's instrumentation would start a trace per message and write its own
    // `traceparent` over the outbox's, which carries each event's trace on to its consumers.
    await context.with(suppressTracing(context.active()), () =>
      producer().sendBatch({ topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })), acks: -1, compression }),
    );
  }

  /** Sends a chunk; when the broker refuses its records, halves it until the refused ones stand alone, and answers those. */
  async function sendIsolating(chunk: Outgoing[]): Promise<Refused[]> {
    try {
      await send(chunk);
      return [];
    } catch (error) {
      if (!refusesRecords(error)) throw error;
      if (chunk.length === 1) return [{ eventId: chunk[0]!.eventId, outboxId: chunk[0]!.outboxId, error }];
      const half = Math.ceil(chunk.length / 2);
      return [...(await sendIsolating(chunk.slice(0, half))), ...(await sendIsolating(chunk.slice(half)))];
    }
  }

  async function setAside(tx: Executor, refused: Refused[]): Promise<void> {
    for (const { eventId, outboxId, error } of refused) {
      logger.error({ eventId, outboxEventId: outboxId, err: error }, 'kafka relay: event cannot be sent; set aside in platform.dead_events');
      await setAsideDeadEvent(tx, RELAY_CONSUMER, eventId, error, 1, outboxId);
    }
  }

  return {
    async publishCommittedEvents(): Promise<boolean> {
      return database.transaction(async (tx) => {
        // Two relays would interleave their batches on a partition and break one user's order.
        const [lock] = await queryRows<{ locked: boolean }>(tx, sql`select pg_try_advisory_xact_lock(${RELAY_LOCK}) as locked`);
        if (!lock?.locked) return false;
        const rows = await queryRows<OutboxRow & { id: string | number }>(
          tx,
          sql`select id, ${outboxColumns} from platform.outbox where published_at is null order by id limit ${ROWS}`,
        );
        if (rows.length === 0) return false;
        const outgoing: Outgoing[] = [];
        const refused: Refused[] = [];
        const taken: typeof rows = [];
        let bytes = 0;
        for (const row of rows) {
          if (taken.length > 0 && bytes >= options.maxBytes) break;
          taken.push(row);
          for (const item of encodeRow(row, refused)) {
            outgoing.push(item);
            bytes += item.bytes;
          }
        }
        // Sent in order, chunk after chunk: a failure leaves every row unmarked, to be sent again whole.
        for (const chunk of chunkByBytes(outgoing, options.maxBytes)) refused.push(...(await sendIsolating(chunk)));
        await setAside(tx, refused);
        const ids = taken.map((row) => Number(row.id));
        await tx.execute(sql`update platform.outbox set published_at = now() where id in (${sql.join(ids, sql`, `)})`);
        return taken.length < rows.length || rows.length === ROWS;
      });
    },

    /**
     * Dead letters of the relay an operator asked to replay (after raising the bound, say): their
     * rows go back to unpublished, so the next round tries them again, and the letters go. A batch
     * row is sent whole again; consumers drop the events they already have by id.
     */
    async republishRequested(): Promise<number> {
      return database.transaction(async (tx) => {
        const rows = await queryRows<{ event_id: string }>(
          tx,
          sql`delete from platform.dead_events where consumer = ${RELAY_CONSUMER} and replay_requested_at is not null
              returning coalesce(outbox_event_id, event_id) as event_id`,
        );
        if (rows.length === 0) return 0;
        await tx.execute(sql`update platform.outbox set published_at = null where event_id = any(${sql.param(rows.map((row) => row.event_id))}::uuid[])`);
        return rows.length;
      });
    },
  };
}
