import path from 'node:path';
import { z } from 'zod';

const optionalUrl = z.string().url().optional();
const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');

/** Every setting of every process, read once at start. See the README's table. */
export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  TARGET: z.enum(['all', 'gateway', 'user', 'catalog', 'transcoder']).default('all'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  DATA_DIR: z.string().default('./data'),
  PUBLIC_URL: optionalUrl,
  DATABASE_URL: optionalUrl,
  REDIS_URL: optionalUrl,
  KAFKA_BROKERS: z.string().optional(),
  KAFKA_CLIENT_ID: z.string().default('cliffhanger'),
  SMTP_URL: optionalUrl,
  MAIL_FROM: z.string().default('Cliffhanger <no-reply@cliffhanger.local>'),
  ADMIN_TOKEN: z.string().min(16).optional(),
  MEDIA_SECRET: z.string().min(32).optional(),
  INTERNAL_TOKEN: z.string().min(16).optional(),
  USER_SERVICE_URL: optionalUrl,
  CATALOG_SERVICE_URL: optionalUrl,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DEMO: flag.default(true),
  FFMPEG_PATH: z.string().optional(),
  FFPROBE_PATH: z.string().optional(),
  /** Prefix of every key this deployment keeps in Redis (BullMQ queues, rate limits), so several can share one. */
  REDIS_PREFIX: z.string().regex(/^[\w-]+$/).default('cliffhanger'),
  FACEBOOK_PIXEL_ID: z.string().max(100).optional(),
  GOOGLE_ANALYTICS_ID: z.string().max(100).optional(),
  TIKTOK_PIXEL_ID: z.string().max(100).optional(),
  BIGO_PIXEL_ID: z.string().max(100).optional(),
  RATE_LIMIT_AUTH_PER_MINUTE: z.coerce.number().int().positive().default(20),
});

export type Config = z.infer<typeof configSchema> & { dataDir: string };

export class ConfigError extends Error {}

/** Parses the environment; a bad value throws one line naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`config: ${issue.path.join('.')}: ${issue.message}`);
  }
  return { ...parsed.data, dataDir: path.resolve(parsed.data.DATA_DIR) };
}
