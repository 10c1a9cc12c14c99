import type { Executor } from '../db/database.ts';
import type { BusEvent, EventType } from './events.ts';

/**
 * Runs inside the transaction that marks the event processed for this consumer: what the
 * handler writes through `tx` happens exactly once per event id, however often it is delivered.
 */
export type EventHandler = (event: BusEvent, tx: Executor) => Promise<void>;

export interface Subscription {
  consumer: string;
  types: readonly EventType[];
  handler: EventHandler;
}

/** The event bus port: the Postgres adapter (outbox as log) or the Kafka adapter. */
export interface EventBus {
  readonly kind: 'postgres' | 'kafka';
  subscribe(consumer: string, types: readonly EventType[], handler: EventHandler): void;
  /** Tells the relay that a transaction with events has committed, so delivery need not wait for a poll. */
  nudge(): void;
  /** Throws when the bus cannot be reached (for /readyz). */
  ping(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** How often a failing event is tried before it is set aside in platform.dead_events. */
export const MAX_DELIVERY_ATTEMPTS = 5;
