import { Gauge } from 'prom-client';
import { ServiceUnavailable } from '../errors.ts';
import type { Metrics } from '../metrics.ts';

export interface BreakerPolicy {
  /** Consecutive failures (unreachable, timed out, 502/503/504) that open the circuit. */
  failuresToOpen: number;
  /** How long an open circuit refuses calls before one trial call may go through. */
  openMs: number;
}

export const defaultBreakerPolicy: BreakerPolicy = { failuresToOpen: 5, openMs: 5_000 };

/**
 * One downstream service's circuit, shared by every call this process makes to it (forwarded
 * requests and internal calls): after `failuresToOpen` failures in a row it opens and calls fail at
 * once with a 503 instead of each waiting for a dead service; after `openMs` one trial call goes
 * through (half open), and its outcome closes or reopens the circuit.
 */
export class CircuitBreaker {
  private failures = 0;
  private openUntil = 0;
  private trialInFlight = false;

  constructor(
    readonly downstream: string,
    private readonly policy: BreakerPolicy = defaultBreakerPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  get state(): 'closed' | 'open' | 'half-open' {
    if (this.failures < this.policy.failuresToOpen) return 'closed';
    return this.now() < this.openUntil ? 'open' : 'half-open';
  }

  /** Whether a call may go out now; false means answer 503 without trying. */
  allow(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.trialInFlight) return false;
    this.trialInFlight = true;
    return true;
  }

  succeeded(): void {
    this.failures = 0;
    this.trialInFlight = false;
  }

  failed(): void {
    this.trialInFlight = false;
    this.failures += 1;
    if (this.failures >= this.policy.failuresToOpen) this.openUntil = this.now() + this.policy.openMs;
  }

  /** The error a call refused or failed for this downstream answers with. */
  unavailable(): ServiceUnavailable {
    return new ServiceUnavailable(`The ${this.downstream} service is unavailable right now. Please try again shortly.`);
  }
}

/**
 * Whether an answer means the downstream itself is failing rather than answering: a 502/503/504 that
 * is not one of our envelopes (a load balancer's or proxy's page). A service's own 503 envelope (a
 * caller it cannot identify now) is an answer, and keeps its circuit closed.
 */
export const downstreamFailed = (status: number, contentType: string | null | undefined) =>
  (status === 502 || status === 503 || status === 504) && !contentType?.startsWith('application/json');

/** One breaker per downstream for this process, each exposed as `circuit_open{downstream}`. */
export function createBreakers(metrics: Metrics, policy: BreakerPolicy = defaultBreakerPolicy) {
  const breakers = new Map<string, CircuitBreaker>();
  new Gauge({
    name: 'circuit_open',
    help: 'Whether the circuit to a downstream service is open (1) or half open (0.5): its calls are being refused',
    labelNames: ['downstream'] as const,
    registers: [metrics.registry],
    collect(this: Gauge<'downstream'>) {
      for (const breaker of breakers.values()) this.set({ downstream: breaker.downstream }, { closed: 0, 'half-open': 0.5, open: 1 }[breaker.state]);
    },
  });
  return (downstream: string): CircuitBreaker => {
    let breaker = breakers.get(downstream);
    if (!breaker) breakers.set(downstream, (breaker = new CircuitBreaker(downstream, policy)));
    return breaker;
  };
}
