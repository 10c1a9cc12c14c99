import { sql } from 'drizzle-orm';
import { Gauge, Histogram } from 'prom-client';
import { queryRows, type Database } from './db/database.ts';
import type { EventBus } from './bus/bus.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';
import type { JobDefinition, JobHandler, JobQueue } from './queue/queue.ts';

interface Watched {
  metrics: Metrics;
  database: Database;
  bus: EventBus;
  queue: JobQueue;
  logger: Logger;
}

/**
 * The series an operator alerts on, read when Prometheus scrapes: jobs waiting and dead per queue,
 * events the outbox has not handed on yet and how old the oldest is, (Postgres bus) how far each
 * consumer is behind, events set aside as dead per consumer, and how long the oldest batch an edge
 * received has waited to become events.
 * A scrape that cannot read them (the database away) leaves the last values and logs why. With the
 * Kafka bus, consumer lag is the broker's (consumer-group offsets, e.g. kafka-exporter's
 * `kafka_consumergroup_lag`).
 */
export function watchPlatform({ metrics, database, bus, queue, logger }: Watched): void {
  const registers = [metrics.registry];
  const guarded = <G>(what: string, read: (this: G) => Promise<void>) =>
    async function (this: G) {
      try {
        await read.call(this);
      } catch (error) {
        logger.warn({ err: error }, `metrics: ${what} not read`);
      }
    };
  new Gauge({
    name: 'queue_jobs',
    help: 'Jobs per queue and status (waiting includes delayed retries)',
    labelNames: ['queue', 'status'] as const,
    registers,
    collect: guarded('queue depth', async function (this: Gauge<'queue' | 'status'>) {
      const depths = await queue.depth();
      // Every status of every queue seen, 0 when it has none, so an alert's series does not vanish.
      for (const name of new Set(depths.map((depth) => depth.queue)))
        for (const status of ['waiting', 'active', 'dead'] as const) this.set({ queue: name, status }, depths.find((depth) => depth.queue === name && depth.status === status)?.jobs ?? 0);
    }),
  });
  // Postgres bus: an event is handed on when the relay gives it its position; Kafka bus: when published.
  const waiting = bus.kind === 'postgres' ? sql`seq is null` : sql`published_at is null`;
  const outbox = { waiting: 0, oldestSeconds: 0 };
  // Both outbox series come from one query: a scrape collects them together, so the second
  // collector takes the reading the first one started instead of querying again.
  let reading: { at: number; done: Promise<void> } | null = null;
  const readOutbox = () => {
    if (!reading || Date.now() - reading.at > 1_000) reading = { at: Date.now(), done: queryOutbox() };
    return reading.done;
  };
  const queryOutbox = guarded('outbox', async function () {
    const [row] = await queryRows<{ waiting: number; oldest: number | null }>(
      database.db,
      sql`select count(*)::int as waiting, extract(epoch from now() - min(occurred_at))::float8 as oldest from platform.outbox where ${waiting}`,
    );
    outbox.waiting = Number(row?.waiting ?? 0);
    outbox.oldestSeconds = Math.max(0, Number(row?.oldest ?? 0));
  });
  new Gauge({
    name: 'outbox_waiting_events',
    help: 'Committed outbox rows the relay has not handed on to consumers yet (an event each, or a batch of pixel hits)',
    registers,
    collect: async function (this: Gauge) {
      await readOutbox();
      this.set(outbox.waiting);
    },
  });
  new Gauge({
    name: 'outbox_lag_seconds',
    help: 'Age of the oldest event the relay has not handed on (0 when none waits)',
    registers,
    collect: async function (this: Gauge) {
      await readOutbox();
      this.set(outbox.oldestSeconds);
    },
  });
  new Gauge({
    name: 'event_bus_degraded',
    help: '1 while the bus cannot carry events (the Kafka broker unreachable or refusing sends) and they wait in the outbox, else 0',
    registers,
    collect() {
      this.set(bus.health() === 'degraded' ? 1 : 0);
    },
  });
  if (bus.kind === 'postgres')
    new Gauge({
      name: 'consumer_lag_events',
      help: 'Events sequenced after the last one each consumer got past',
      labelNames: ['consumer'] as const,
      registers,
      collect: guarded('consumer lag', async function (this: Gauge<'consumer'>) {
        const rows = await queryRows<{ consumer: string; behind: number }>(
          database.db,
          sql`select c.consumer, greatest(0, (select coalesce(max(seq), 0) from platform.outbox) - c.seq)::int as behind from platform.consumer_offsets c`,
        );
        for (const row of rows) this.set({ consumer: row.consumer }, Number(row.behind));
      }),
    });
  const deadConsumers = new Set<string>();
  new Gauge({
    name: 'dead_events',
    help: 'Events set aside per consumer after their last retry (platform.dead_events), waiting for a person to replay or drop them',
    labelNames: ['consumer'] as const,
    registers,
    collect: guarded('dead events', async function (this: Gauge<'consumer'>) {
      const rows = await queryRows<{ consumer: string; dead: number }>(database.db, sql`select consumer, count(*)::int as dead from platform.dead_events group by consumer`);
      // A consumer whose last dead event was replayed reads 0, not its last count, nor nothing.
      for (const consumer of deadConsumers) this.set({ consumer }, 0);
      for (const row of rows) {
        deadConsumers.add(row.consumer);
        this.set({ consumer: row.consumer }, Number(row.dead));
      }
    }),
  });
  new Gauge({
    name: 'edge_batch_lag_seconds',
    help: 'Age of the oldest batch a gateway edge received (statics.png hits) that its module has not turned into events yet (0 when none waits)',
    registers,
    collect: guarded('edge batches', async function (this: Gauge) {
      const [row] = await queryRows<{ oldest: number | null }>(database.db, sql`select extract(epoch from now() - min(received_at))::float8 as oldest from platform.edge_batches`);
      this.set(Math.max(0, Number(row?.oldest ?? 0)));
    }),
  });
}

/**
 * The queue, with every job this process works timed: `job_duration_seconds{queue,outcome}`, from
 * a few seconds (a mail) to the half hour a long transcode may take.
 */
export function timedQueue(queue: JobQueue, metrics: Metrics): JobQueue {
  const durations = new Histogram({
    name: 'job_duration_seconds',
    help: 'Time a job took in its worker, by queue and outcome (completed, failed: retried or dead)',
    labelNames: ['queue', 'outcome'] as const,
    buckets: [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800],
    registers: [metrics.registry],
  });
  return {
    ...queue,
    work<T>(definition: JobDefinition<T>, handler: JobHandler<T>) {
      queue.work(definition, async (job) => {
        const end = durations.startTimer({ queue: definition.queue });
        try {
          const result = await handler(job);
          end({ outcome: 'completed' });
          return result;
        } catch (error) {
          end({ outcome: 'failed' });
          throw error;
        }
      });
    },
  };
}
