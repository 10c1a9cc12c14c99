import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';

const optionalUrl = z.string().url().optional();
const perMinute = (fallback: number) => z.coerce.number().int().positive().default(fallback);

// proxy-addr's names and an address or subnet (`10.0.0.0/8`, `fd00::/8`), as Express's `trust proxy` takes them.
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const isProxyAddress = (entry: string) => {
  if (PROXY_NAMES.has(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const family = net.isIP(address);
  if (!family || rest.length > 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
};

/**
 * Which peers may tell the client's address in X-Forwarded-For: none (the connection's own address
 * counts), a number of proxy hops in front of the gateway, or the proxies' addresses and subnets.
 */
const trustProxy = z
  .string()
  .trim()
  .optional()
  .transform((value, context): number | string[] | false => {
    if (!value || value === '0') return false;
    if (/^\d+$/.test(value)) return Number(value);
    const entries = value.split(',').map((entry) => entry.trim()).filter(Boolean);
    const bad = entries.find((entry) => !isProxyAddress(entry));
    if (bad === undefined && entries.length > 0) return entries;
    context.addIssue({ code: 'custom', message: `'${bad ?? value}' is not a number of proxy hops, nor an address or subnet of a proxy` });
    return z.NEVER;
  });

const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');

// A sign-in provider's address: https, or http on this machine only (the tests' local OpenID provider).
const signInProviderUrl = z
  .string()
  .url()
  .refine((value) => {
    const url = new URL(value);
    return url.protocol === 'https:' || (url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname));
  }, 'an https URL (http only on 127.0.0.1 or localhost)')
  .optional();
const clientCredential = z.string().min(1).max(500).optional();

/** Every setting of every process, read once at start. See the README's table. */
export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /** Which modules this process runs: `all`, or names from the module registry, comma-separated (checked against it at start). */
  TARGET: z.string().regex(/^[a-z]+(,[a-z]+)*$/, 'a module name or a comma-separated list of them').default('all'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  DATA_DIR: z.string().default('./data'),
  PUBLIC_URL: optionalUrl,
  DATABASE_URL: optionalUrl,
  REDIS_URL: optionalUrl,
  KAFKA_BROKERS: z.string().optional(),
  KAFKA_CLIENT_ID: z.string().default('cliffhanger'),
  /** The most bytes (before compression) one produce call carries; under the broker's `message.max.bytes` (1 MB by default). */
  KAFKA_BATCH_MAX_BYTES: z.coerce.number().int().min(16_384).max(64 * 1024 * 1024).default(512 * 1024),
  KAFKA_COMPRESSION: z.enum(['gzip', 'none']).default('gzip'),
  /** The longest wait between the relay's tries to reach a broker that is away (it starts at 0.5 s and doubles, with jitter). */
  KAFKA_RECONNECT_MAX_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000),
  /** How the relay creates the event topics where the broker lets it (an existing topic keeps its settings). */
  KAFKA_TOPIC_PARTITIONS: z.coerce.number().int().min(1).max(10_000).default(12),
  KAFKA_TOPIC_REPLICATION: z.coerce.number().int().min(1).max(16).default(3),
  KAFKA_TOPIC_RETENTION_HOURS: z.coerce.number().int().min(1).max(87_600).default(168),
  SMTP_URL: optionalUrl,
  MAIL_FROM: z.string().default('Cliffhanger <no-reply@cliffhanger.local>'),
  ADMIN_TOKEN: z.string().min(16).optional(),
  /** What a scraper sends to /metrics under NODE_ENV=production (`Authorization: Bearer`); the admin token does not open it. */
  METRICS_TOKEN: z.string().min(16).optional(),
  MEDIA_SECRET: z.string().min(32).optional(),
  /** The media edge's origin (edge/, nginx checking the same grants): playback URLs are handed out there instead of the site's /media. */
  MEDIA_EDGE_URL: optionalUrl,
  INTERNAL_TOKEN: z.string().min(16).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DEMO: flag.default(true),
  /** Renders only the first N episodes of each demo series (the rest stay listed, not yet playable): a lighter demo for a slow machine and the end-to-end suites. */
  DEMO_EPISODES: z.coerce.number().int().min(1).max(100).optional(),
  /** Media in this S3-compatible bucket instead of DATA_DIR/media: needed when the transcoder and media serving run on different machines. */
  S3_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'an S3 bucket name').optional(),
  /** Key prefix inside the bucket (e.g. `media`). */
  S3_PREFIX: z.string().regex(/^[\w.-]+(\/[\w.-]+)*$/, 'a key prefix like media or site/media').optional(),
  /** An S3-compatible endpoint (MinIO, R2, Ceph); AWS when unset. */
  S3_ENDPOINT: optionalUrl,
  S3_REGION: z.string().default('us-east-1'),
  /** Static credentials; unset, the AWS SDK's chain (environment, web identity, instance role). */
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  /** Bucket in the path rather than the host name; on by default when S3_ENDPOINT is set. */
  S3_FORCE_PATH_STYLE: flag.optional(),
  FFMPEG_PATH: z.string().optional(),
  FFPROBE_PATH: z.string().optional(),
  /** Largest episode file the admin API takes and the transcoder reads. */
  MAX_UPLOAD_MB: z.coerce.number().int().min(1).max(1024 * 1024).default(2048),
  /** Longest source the transcoder accepts. */
  TRANSCODE_MAX_MINUTES: z.coerce.number().min(1).max(24 * 60).default(30),
  /** Ceiling on one ladder run's wall-clock time (each run gets 2 min + 6x the source's length, up to this). */
  TRANSCODE_TIMEOUT_MINUTES: z.coerce.number().min(1).max(48 * 60).default(180),
  /** Prefix of every key this deployment keeps in Redis (BullMQ queues, rate limits), so several can share one. */
  REDIS_PREFIX: z.string().regex(/^[\w-]+$/).default('cliffhanger'),
  FACEBOOK_PIXEL_ID: z.string().max(100).optional(),
  GOOGLE_ANALYTICS_ID: z.string().max(100).optional(),
  TIKTOK_PIXEL_ID: z.string().max(100).optional(),
  BIGO_PIXEL_ID: z.string().max(100).optional(),
  /** Purchases and registrations go to Facebook's Conversions API for FACEBOOK_PIXEL_ID when set (a system user's access token). */
  FACEBOOK_CAPI_TOKEN: z.string().min(1).max(1000).optional(),
  /** Facebook's Graph API origin (tests' stand-in); graph.facebook.com otherwise. */
  FACEBOOK_GRAPH_URL: z.string().url().default('https://graph.facebook.com'),
  /** Social sign-in with Google when both are set (an OAuth client of type "web application"). */
  GOOGLE_CLIENT_ID: clientCredential,
  GOOGLE_CLIENT_SECRET: clientCredential,
  /** Another OpenID provider in Google's place, found by discovery (the tests' local one); https://accounts.google.com otherwise. */
  GOOGLE_ISSUER: signInProviderUrl,
  /** Social sign-in with Facebook Login when both are set (the app's id and secret). */
  FACEBOOK_CLIENT_ID: clientCredential,
  FACEBOOK_CLIENT_SECRET: clientCredential,
  /** An OAuth server found by discovery in place of Facebook's login dialog (the tests' local one); the profile still comes from FACEBOOK_GRAPH_URL. */
  FACEBOOK_ISSUER: signInProviderUrl,
  /** Purchases and registrations go to TikTok's Events API for TIKTOK_PIXEL_ID when set. */
  TIKTOK_EVENTS_TOKEN: z.string().min(1).max(1000).optional(),
  /** TikTok's Business API origin (tests' stand-in); business-api.tiktok.com otherwise. */
  TIKTOK_EVENTS_URL: z.string().url().default('https://business-api.tiktok.com'),
  /** Proxy hops (or proxy addresses) in front of the gateway whose X-Forwarded-For is believed; none by default. */
  TRUST_PROXY: trustProxy,
  /** Per client address and minute, each counted in Redis across replicas when REDIS_URL is set. */
  RATE_LIMIT_AUTH_PER_MINUTE: perMinute(20),
  RATE_LIMIT_GUEST_PER_MINUTE: perMinute(30),
  RATE_LIMIT_HISTORY_PER_MINUTE: perMinute(120),
  /** statics.png hits recorded per client address and minute, counted by each gateway alone; past it the PNG is still answered. */
  RATE_LIMIT_PIXEL_PER_MINUTE: perMinute(600),
  /** statics.png hits a gateway holds while they wait to be written (or while the database is away); past it new hits are dropped. */
  PIXEL_BUFFER_HITS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  /** How long a statics.png hit waits, at most, before its batch is written. */
  PIXEL_FLUSH_MS: z.coerce.number().int().min(1).max(60_000).default(1000),
  /** How long a player's heartbeat (its watch position) waits, at most, before it is written with the others of its process. */
  HISTORY_FLUSH_MS: z.coerce.number().int().min(1).max(60_000).default(5000),
  /** A session unused this long is refused; every use (at most one write an hour) starts the count again. */
  SESSION_IDLE_DAYS: z.coerce.number().positive().max(3650).default(30),
  /** Days the outbox keeps delivered events. */
  RETENTION_EVENT_DAYS: z.coerce.number().int().min(1).max(3650).default(7),
  /**
   * Days processed-event marks are kept: at least as long as any event can be delivered again (the
   * outbox's RETENTION_EVENT_DAYS, the Kafka topics' KAFKA_TOPIC_RETENTION_HOURS), since
   * consumers start from the beginning of what is kept and an event without its mark is applied twice.
   */
  RETENTION_MARK_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** Days after which a guest that never did anything (no list, history, coins or VIP) and whose sessions lapsed is deleted. */
  RETENTION_GUEST_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** Days the lake (Parquet files of every event, docs/analytics.md) keeps a day's files; apart from the outbox's RETENTION_EVENT_DAYS. */
  LAKE_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(400),
  /** Events that start a lake file at once; fewer wait for LAKE_FLUSH_MS. */
  LAKE_FILE_EVENTS: z.coerce.number().int().min(1).max(10_000_000).default(100_000),
  /** How long an event waits, at most, before it is written to the lake. */
  LAKE_FLUSH_MS: z.coerce.number().int().min(100).max(86_400_000).default(300_000),
  /** Days finished (completed or dead) jobs are kept. */
  RETENTION_JOB_DAYS: z.coerce.number().int().min(1).max(3650).default(7),
  /** On SIGTERM, how long requests in flight may take to finish before their connections are cut. */
  SHUTDOWN_DRAIN_SECONDS: z.coerce.number().int().min(0).max(600).default(10),
  /** On SIGTERM, how long the server keeps serving with /readyz at 503 before it stops accepting, so load balancers move away first. */
  SHUTDOWN_ANNOUNCE_SECONDS: z.coerce.number().min(0).max(60).default(2),
  /** Stripe runs when this is set, and the sandbox provider never does. */
  /** Days a VIP whose renewal failed keeps access while its card is retried (the app stores' billing grace period). */
  PAYMENT_GRACE_DAYS: z.coerce.number().int().min(0).max(30).default(7),
  STRIPE_SECRET_KEY: z.string().regex(/^(sk|rk)_\w+$/, 'a secret key (sk_...)').optional(),
  STRIPE_WEBHOOK_SECRET: z.string().regex(/^whsec_\w+$/, 'a webhook signing secret (whsec_...)').optional(),
  STRIPE_PUBLISHABLE_KEY: z.string().regex(/^pk_\w+$/, 'a publishable key (pk_...)').optional(),
  /** Another Stripe API origin (tests' stand-in); api.stripe.com otherwise. */
  STRIPE_API_BASE: optionalUrl,
  /** Which payment provider; unset picks Stripe when STRIPE_SECRET_KEY is set. `sandbox` allows it under NODE_ENV=production. */
  PAYMENT_PROVIDER: z.enum(['sandbox', 'stripe']).optional(),
  /** Traces are exported by OTLP/HTTP to `<this>/v1/traces` when set; nothing is exported otherwise. */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  /** The service name traces carry; `cliffhanger-<TARGET>` by default. */
  OTEL_SERVICE_NAME: z.string().min(1).max(100).optional(),
  /** Errors (and 3 traces in 10) go to Sentry, from the server and the browser, when set. */
  SENTRY_DSN: z
    .string()
    .url()
    .refine((dsn) => /^https?:$/.test(new URL(dsn).protocol) && new URL(dsn).username !== '' && /\/\d+$/.test(new URL(dsn).pathname), 'a Sentry DSN (https://<key>@<host>/<project id>)')
    .optional(),
});

/** `dataDir`: DATA_DIR resolved; `serviceUrls`: where each module running apart is reached, from `<NAME>_SERVICE_URL`. */
export type Config = z.infer<typeof configSchema> & { dataDir: string; serviceUrls: Record<string, string> };

const SERVICE_URL = /^([A-Z]+)_SERVICE_URL$/;

/**
 * A production site mails real people: a module that sends mail stops its process at start without
 * SMTP_URL, rather than write reset links or receipts to a file nobody reads.
 */
export function requireMail(config: Pick<Config, 'NODE_ENV' | 'SMTP_URL'>, module: string, what: string): void {
  if (config.NODE_ENV === 'production' && !config.SMTP_URL) throw new ConfigError(`config: SMTP_URL: required when NODE_ENV=production and this process runs ${module}, which mails ${what}`);
}

export class ConfigError extends Error {}

/** Parses the environment; a bad value throws one line naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`config: ${issue.path.join('.')}: ${issue.message}`);
  }
  // A production site's links (mail, payment returns, sign-in callbacks) may not point at an internal
  // address. SMTP_URL is asked only by the modules that mail (requireMail), so no other process holds it.
  if (parsed.data.NODE_ENV === 'production' && !parsed.data.PUBLIC_URL) throw new ConfigError('config: PUBLIC_URL: required when NODE_ENV=production');
  // Half a sign-in client would hide its button without a word: both halves or neither.
  for (const provider of ['GOOGLE', 'FACEBOOK'] as const) {
    if (!parsed.data[`${provider}_CLIENT_ID`] !== !parsed.data[`${provider}_CLIENT_SECRET`])
      throw new ConfigError(`config: ${provider}_CLIENT_SECRET: set together with ${provider}_CLIENT_ID`);
  }
  // A mark pruned while its event can still be read again (the outbox, a Kafka topic) lets it apply twice.
  const redeliverableDays = Math.max(parsed.data.RETENTION_EVENT_DAYS, Math.ceil(parsed.data.KAFKA_TOPIC_RETENTION_HOURS / 24));
  if (parsed.data.RETENTION_MARK_DAYS < redeliverableDays)
    throw new ConfigError(`config: RETENTION_MARK_DAYS: at least RETENTION_EVENT_DAYS and KAFKA_TOPIC_RETENTION_HOURS in days (${redeliverableDays}), or events still kept would be applied again`);
  const serviceUrls: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const module = SERVICE_URL.exec(name)?.[1];
    if (!module || !value) continue;
    if (!URL.canParse(value)) throw new ConfigError(`config: ${name}: Invalid URL`);
    serviceUrls[module.toLowerCase()] = value;
  }
  return { ...parsed.data, dataDir: path.resolve(parsed.data.DATA_DIR), serviceUrls };
}
