import { setTimeout as delay } from 'node:timers/promises';
import type { IncrementResponse, Options, Store } from 'express-rate-limit';
import type { Redis } from 'ioredis';

/** The longest a client's first call in a window waits on Redis: past it, the process counts alone. */
const FIRST_ASK_MS = 2_000;

// Adds a process's calls to the window's count, opening the window if it had closed: the count all
// replicas made, and the milliseconds left.
const ADD_SCRIPT = `
local added = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2])
local left = redis.call("PTTL", KEYS[1])
if left <= 0 then
  if added <= 0 then return { 0, windowMs } end
  redis.call("SET", KEYS[1], added, "PX", windowMs)
  return { added, windowMs }
end
return { redis.call("INCRBY", KEYS[1], added), left }
`;

interface Count {
  /** What all replicas had counted at the last answer from Redis. */
  shared: number;
  /** This process's calls on their way to Redis. */
  sending: number;
  /** This process's calls since. */
  pending: number;
  resetTime: Date;
}

/**
 * A count per client that every gateway replica shares through Redis, for a limit on a call made all
 * the time (history writes: every watching viewer's heartbeat). rate-limit-redis asks Redis on every
 * call, a round trip and a script each (a fifteenth of the site's time at 10,000 viewers on PostgreSQL);
 * this store asks Redis on a client's first call in a window, then counts the client's calls in the
 * process and adds them to Redis every `flushMs`, in one pipeline, reading back what every replica
 * counted. So a process refuses past the limit at once on its own calls, and within `flushMs` on the
 * others'. While Redis is away each process goes on counting alone (with rate-limit-redis every call
 * waited on Redis and then went through uncounted). Neither express-rate-limit's stores nor
 * rate-limiter-flexible count a process's calls before asking the shared store, hence this.
 */
export class SharedCountStore implements Store {
  readonly localKeys = false;
  readonly prefix: string;
  private windowMs = 60_000;
  private readonly counts = new Map<string, Count>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private failing = false;
  private stopped = false;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly onUnreachable: (error: unknown) => void,
    private readonly flushMs = 100,
  ) {
    this.prefix = prefix;
  }

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  increment(key: string): IncrementResponse | Promise<IncrementResponse> {
    const { count, fresh } = this.current(key);
    count.pending += 1;
    const answer = () => ({ totalHits: count.shared + count.sending + count.pending, resetTime: count.resetTime });
    if (!fresh) {
      this.schedule();
      return answer();
    }
    // A client this process has not counted in this window: Redis first says what the others counted.
    return Promise.race([this.flush(), delay(FIRST_ASK_MS, undefined, { ref: false })]).then(answer);
  }

  decrement(key: string): void {
    const count = this.counts.get(key);
    if (!count) return;
    count.pending -= 1;
    this.schedule();
  }

  async resetKey(key: string): Promise<void> {
    this.counts.delete(key);
    await this.redis.del(this.prefix + key);
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }

  /** Adds this process's calls to Redis's counts, and learns every replica's (one flush at a time). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    this.flushing = this.send();
    try {
      await this.flushing;
    } finally {
      this.flushing = null;
    }
  }

  private current(key: string): { count: Count; fresh: boolean } {
    const now = Date.now();
    const known = this.counts.get(key);
    if (known && known.resetTime.getTime() > now) return { count: known, fresh: false };
    const count = { shared: 0, sending: 0, pending: 0, resetTime: new Date(now + this.windowMs) };
    this.counts.set(key, count);
    return { count, fresh: true };
  }

  private schedule(): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.flushMs);
    this.timer.unref();
  }

  private async send(): Promise<void> {
    const now = Date.now();
    const batch: { key: string; count: Count; sent: number }[] = [];
    for (const [key, count] of this.counts) {
      if (count.pending !== 0) batch.push({ key, count, sent: count.pending });
      else if (count.sending === 0 && count.resetTime.getTime() <= now) this.counts.delete(key);
    }
    if (batch.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const entry of batch) {
      entry.count.sending += entry.sent;
      entry.count.pending -= entry.sent;
      pipeline.eval(ADD_SCRIPT, 1, this.prefix + entry.key, entry.sent, this.windowMs);
    }
    let replies: [Error | null, unknown][] | null;
    try {
      replies = await pipeline.exec();
    } catch (error) {
      replies = batch.map(() => [error as Error, null]);
    }
    let failure: unknown = null;
    for (const [index, entry] of batch.entries()) {
      const [error, reply] = replies?.[index] ?? [new Error('no reply from Redis'), null];
      entry.count.sending -= entry.sent;
      if (error || !Array.isArray(reply)) {
        // Counted again with the next flush; meanwhile this process counts them alone.
        entry.count.pending += entry.sent;
        failure = error ?? new Error('unexpected reply from Redis');
        continue;
      }
      const [total, left] = reply.map(Number) as [number, number];
      entry.count.shared = total;
      entry.count.resetTime = new Date(Date.now() + left);
    }
    if (failure && !this.failing) this.onUnreachable(failure);
    this.failing = failure !== null;
    if (failure) this.schedule();
  }
}
