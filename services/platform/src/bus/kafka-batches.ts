import type { WireMessage } from './wire.ts';

/**
 * How the relay cuts what it gathered into produce calls, and how it waits for a broker that does
 * not answer. Kept apart from the adapter so the bounds can be checked without a broker.
 */

/** One event on its way to Kafka, with where it came from in the outbox. */
export interface Outgoing {
  topic: string;
  message: WireMessage;
  /** The event's own id. */
  eventId: string;
  /** The outbox row holding it when that row is a batch (the pixel's hits), else undefined. */
  outboxId?: string;
  bytes: number;
}

/**
 * Record overhead on the wire beyond key, value and headers (lengths, offsets, timestamps as
 * varints, attributes): at most a few dozen bytes; counted generously so the bound holds.
 */
const RECORD_OVERHEAD = 64;

/** A message's size as the broker counts it before compression, slightly over rather than under. */
export function messageBytes(message: WireMessage): number {
  let bytes = RECORD_OVERHEAD + Buffer.byteLength(message.key) + message.value.length;
  for (const [name, value] of Object.entries(message.headers)) bytes += Buffer.byteLength(name) + Buffer.byteLength(value) + 2;
  return bytes;
}

/**
 * Cuts events into produce calls of at most `maxBytes` each (uncompressed, so the compressed batch
 * the broker checks against `message.max.bytes` is smaller still), keeping their order: one user's
 * events of a family stay in order on their partition. An event alone over the bound is never
 * given to this function (the relay sets it aside first).
 */
export function chunkByBytes<T extends { bytes: number }>(items: readonly T[], maxBytes: number): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const item of items) {
    if (current.length > 0 && size + item.bytes > maxBytes) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += item.bytes;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * The wait before the relay's next try after `failures` failures in a row (reaching the broker or
 * sending to it): from `baseMs` doubling up to `maxMs`, each wait a random point between half and
 * all of it, so the relays and consumers of every pod do not hit a recovering broker in step.
 */
export function reconnectDelayMs(failures: number, { baseMs, maxMs }: { baseMs: number; maxMs: number }, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(30, Math.max(0, failures - 1)));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * Errors by which the broker refuses the records themselves, not the connection: sending them again
 * can never work, so the relay finds the one record at fault and sets it aside. Anything else
 * (unreachable, no leader, timeouts, authorization) is the broker's state and is waited out.
 */
const RECORD_REFUSALS = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_RECORD', 'CORRUPT_MESSAGE', 'INVALID_TIMESTAMP']);

/** Whether a failed send was the broker refusing these records (kafkajs wraps the protocol error as `cause`). */
export function refusesRecords(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at && depth < 4; at = (at as { cause?: unknown }).cause, depth++) {
    const type = (at as { type?: unknown }).type;
    if (typeof type === 'string' && RECORD_REFUSALS.has(type)) return true;
  }
  return false;
}
