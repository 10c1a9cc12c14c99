import type { Background, Database, Logger } from '@cliffhanger/platform';
import type { Destination, Outcome } from './conversion-destinations.ts';
import { conversionRepository as repo, type ConversionRow } from './conversion-repository.ts';

export interface SenderOptions {
  /** How often due conversions are looked for when nothing nudges the sender. */
  pollMs: number;
  /** Conversions claimed at a time. */
  batch: number;
  /** Tries before a conversion is given up as failed. */
  maxAttempts: number;
  /** One call's limit, answer included. */
  timeoutMs: number;
  /** How long a claim keeps other senders away; longer than a call may take. */
  leaseMs: number;
  /** The wait after the `attempts`-th failed try. */
  backoffMs(attempts: number): number;
}

const MINUTE = 60_000;
const MAX_WAIT_MS = 6 * 60 * MINUTE;

/**
 * 12 tries over about 15 hours, well inside the 7 days Facebook accepts an event_time: 30 s doubling
 * up to 6 hours, each wait between half and all of it so senders do not come back in step.
 */
export const defaultSenderOptions: SenderOptions = {
  pollMs: 5_000,
  batch: 20,
  maxAttempts: 12,
  timeoutMs: 10_000,
  leaseMs: MINUTE,
  backoffMs: (attempts) => {
    const ceiling = Math.min(MAX_WAIT_MS, 30_000 * 2 ** Math.max(0, attempts - 1));
    return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
  },
};

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.name}: ${error.message}${cause}`;
}

/**
 * Delivers queued conversions, outside any transaction: one POST each, bounded by a timeout. A
 * refusal (a 4xx other than 429) is final; a server error, throttling, a timeout or a network
 * failure is tried again after a backoff, up to `maxAttempts`. Whatever is pending when the process
 * stops waits in the table for the next start.
 */
export function createConversionSender(
  { database, logger }: { database: Pick<Database, 'db'>; logger: Logger },
  destinations: Destination[],
  options: SenderOptions = defaultSenderOptions,
) {
  const byName = new Map(destinations.map((destination) => [destination.name, destination]));
  const names = destinations.map((destination) => destination.name);
  let started = false;
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;

  async function attempt(destination: Destination, row: ConversionRow): Promise<Outcome> {
    try {
      const request = destination.requestOf(row.payload);
      const response = await fetch(request.url, { method: 'POST', headers: request.headers, body: request.body, signal: AbortSignal.timeout(options.timeoutMs) });
      return destination.outcomeOf(response.status, await response.text(), response.headers.get('retry-after'));
    } catch (error) {
      // Timeouts and network failures: the call may or may not have arrived; the event id makes a second one harmless.
      return { kind: 'retry', error: describe(error) };
    }
  }

  async function deliver(row: ConversionRow): Promise<void> {
    const destination = byName.get(row.destination)!;
    const log = { destination: row.destination, eventId: row.eventId, attempts: row.attempts };
    // Claimed again after its last try's lease lapsed: that sender died mid-call.
    if (row.attempts > options.maxAttempts) {
      await repo.markFailed(database.db, row.id, row.lastError ?? 'no answer within its attempts');
      logger.warn(log, 'conversion given up: its last attempt never finished');
      return;
    }
    const outcome = await attempt(destination, row);
    if (outcome.kind === 'sent') {
      await repo.markSent(database.db, row.id);
      logger.debug(log, 'conversion sent');
      return;
    }
    const error = destination.redact(outcome.error);
    if (outcome.kind === 'refused' || row.attempts >= options.maxAttempts) {
      await repo.markFailed(database.db, row.id, error);
      logger.warn({ ...log, error }, outcome.kind === 'refused' ? 'conversion refused by its destination' : 'conversion given up after its last attempt');
      return;
    }
    const waitMs = Math.min(MAX_WAIT_MS, Math.max(options.backoffMs(row.attempts), outcome.retryAfterMs ?? 0));
    await repo.retryLater(database.db, row.id, waitMs, error);
    logger.info({ ...log, error, waitMs }, 'conversion not delivered, trying again later');
  }

  /** Sends what is due, batch after batch, until nothing is due or the sender stops. */
  async function sendDue(): Promise<void> {
    for (;;) {
      const rows = await repo.claimDue(database.db, names, options.batch, options.leaseMs);
      for (const row of rows) {
        // A stopping process leaves the rest claimed: their lease lapses and the next start sends them.
        if (stopped) return;
        await deliver(row);
      }
      if (rows.length < options.batch) return;
    }
  }

  /** One run at a time; a nudge during a run makes another run follow it. */
  function run(): void {
    if (!started || stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        await sendDue();
      } while (again && !stopped);
    })()
      .catch((error: unknown) => logger.error({ err: error }, 'sending conversions failed'))
      .finally(() => {
        running = null;
      });
  }

  return {
    /** Sends what is due now rather than at the next poll (a consumer just queued something). */
    nudge: run,

    /** Sends now and every `pollMs`, until stopped; what was pending before a restart goes first. */
    start(): Background {
      started = true;
      run();
      const timer = setInterval(run, options.pollMs).unref();
      return {
        async stop() {
          stopped = true;
          clearInterval(timer);
          await running;
        },
      };
    },
  };
}

export type ConversionSender = ReturnType<typeof createConversionSender>;
