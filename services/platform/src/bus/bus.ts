import type { Executor } from '../db/database.ts';
import type { BusEvent, EventType } from './events.ts';

/** What a handler does beyond its transaction: work that must wait until its writes are committed. */
export interface HandlerEffects {
  /** Runs `work` once the delivery's transaction has committed (never if it rolls back); a failure is logged. */
  afterCommit(work: () => unknown): void;
}

/**
 * Runs inside the transaction that marks the event processed for this consumer: what the
 * handler writes through `tx` happens exactly once per event id, however often it is delivered.
 * Anything else (files, caches, calls) goes through `effects.afterCommit`, so a rollback leaves none.
 */
export type EventHandler = (event: BusEvent, tx: Executor, effects: HandlerEffects) => Promise<void>;

/**
 * An EventHandler for many events at once, in their order, in one transaction: for a consumer whose
 * events each cost a statement or more, applied in a few set-based statements instead (under load
 * the statements per event, not the events, are what a database runs out of). The same contract as
 * EventHandler: each event applies exactly once, whatever else the batch holds.
 */
export type BatchEventHandler = (events: BusEvent[], tx: Executor, effects: HandlerEffects) => Promise<void>;

/** A batch handler given one event at a time: how a bus delivers what it does not deliver together. */
export const oneAtATime =
  (batch: BatchEventHandler): EventHandler =>
  (event, tx, effects) =>
    batch([event], tx, effects);

export interface Subscription {
  consumer: string;
  types: readonly EventType[];
  handler: EventHandler;
  /** Its batch handler, when it has one (`handler` is then that one given one event at a time). */
  batch?: BatchEventHandler;
}

export type BusHealth = 'up' | 'degraded';

/** The event bus port: the Postgres adapter (outbox as log) or the Kafka adapter. */
export interface EventBus {
  readonly kind: 'postgres' | 'kafka';
  subscribe(consumer: string, types: readonly EventType[], handler: EventHandler): void;
  /**
   * Subscribes a batch handler: the Postgres bus hands it each delivery's events together; the Kafka
   * bus (a transaction per message) and any retry of a failed batch, one at a time.
   */
  subscribeBatch(consumer: string, types: readonly EventType[], handler: BatchEventHandler): void;
  /** Tells the relay that a transaction with events has committed, so delivery need not wait for a poll. */
  nudge(): void;
  /**
   * For /readyz: `degraded` while events cannot travel (the Kafka broker away) and wait in the
   * outbox. A process still serves then, so readiness reports it and does not fail on it.
   */
  health(): BusHealth;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * How a failing event is retried before it is set aside in platform.dead_events: a dependency that
 * is down for minutes (a restart, a deploy) must not turn a whole stream of events into dead letters.
 */
export interface DeliveryPolicy {
  maxAttempts: number;
  /** The wait after `failures` consecutive failures of one event. */
  backoffMs(failures: number): number;
}

/**
 * 12 tries over about 20 minutes: 1 s doubling up to 5 minutes, each wait with jitter (between half
 * and all of it) so processes retrying the same broken dependency do not come back in step.
 */
export const defaultDeliveryPolicy: DeliveryPolicy = {
  maxAttempts: 12,
  backoffMs: (failures) => {
    const ceiling = Math.min(300_000, 1_000 * 2 ** Math.max(0, failures - 1));
    return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
  },
};
