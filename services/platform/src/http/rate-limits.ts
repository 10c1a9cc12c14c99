import { Router, type RequestHandler } from 'express';
import { rateLimit, type RateLimitRequestHandler, type Store } from 'express-rate-limit';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import type { Config } from '../config.ts';
import { failure } from '../envelope.ts';
import type { RateLimitedCall, RateLimitName } from '../modules/module.ts';
import type { Platform } from '../platform.ts';
import { literalHead, onlyUnder } from './layers.ts';
import { SharedCountStore } from './shared-count-store.ts';

const perMinuteOf = {
  auth: 'RATE_LIMIT_AUTH_PER_MINUTE',
  guest: 'RATE_LIMIT_GUEST_PER_MINUTE',
  history: 'RATE_LIMIT_HISTORY_PER_MINUTE',
} as const satisfies Record<RateLimitName, keyof Config>;

const refusal = (name: RateLimitName) =>
  name === 'auth' ? 'Too many attempts. Please wait a minute and try again.' : 'Too many requests. Please wait a minute and try again.';

/**
 * Where the replicas keep one count: the history limit, which every watching viewer's heartbeat
 * meets, counts in each process and adds to Redis ten times a second (SharedCountStore); the logins'
 * and guests' limits, rarely met and where one call more matters, ask Redis on every call.
 */
function sharedStore(platform: Pick<Platform, 'config' | 'redis' | 'logger'>, name: RateLimitName): Store {
  const redis = platform.redis!;
  const prefix = `${platform.config.REDIS_PREFIX}:rate:${name}:`;
  if (name === 'history')
    return new SharedCountStore(redis, prefix, (error) => platform.logger.warn({ err: error }, `rate limit ${name}: Redis unreachable, each process counts alone`));
  return new RedisStore({ prefix, sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as Promise<RedisReply> });
}

/**
 * The modules' limited calls, to go ahead of every route: one count per limit name and client address
 * (`req.ip`, which only TRUST_PROXY lets X-Forwarded-For change). With Redis every gateway replica
 * counts against one limit; otherwise each process counts alone. Only a path that may be one of them
 * walks their routes.
 */
export function rateLimits(platform: Pick<Platform, 'config' | 'redis' | 'logger'>, calls: RateLimitedCall[]): RequestHandler[] {
  const limiters = new Map<RateLimitName, RateLimitRequestHandler>();
  const limiterOf = (name: RateLimitName) => {
    let limiter = limiters.get(name);
    if (limiter) return limiter;
    const { redis, config } = platform;
    limiter = rateLimit({
      windowMs: 60_000,
      limit: config[perMinuteOf[name]],
      standardHeaders: 'draft-7',
      legacyHeaders: false,
      // Without TRUST_PROXY a client's own X-Forwarded-For is ignored on purpose: not a misconfiguration to warn about.
      validate: { xForwardedForHeader: false },
      // Should Redis fail, password guesses stay refused, guests keep working uncounted, and each
      // process counts history writes alone (SharedCountStore).
      passOnStoreError: name !== 'auth',
      ...(redis ? { store: sharedStore(platform, name) } : {}),
      handler: (_req, res) => void res.status(429).json(failure(429, refusal(name))),
    });
    limiters.set(name, limiter);
    return limiter;
  };
  const router = Router();
  for (const call of calls) {
    const limiter = limiterOf(call.limit ?? 'auth');
    router[call.method === 'GET' ? 'get' : 'post'](call.path, (req, res, next) => {
      if (call.onlyAnonymous && req.context?.userId) return next();
      return limiter(req, res, next);
    });
  }
  return calls.length === 0 ? [] : onlyUnder([...new Set(calls.map((call) => literalHead(call.path)))], [router]);
}
