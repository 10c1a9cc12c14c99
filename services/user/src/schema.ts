import { boolean, integer, jsonb, pgSchema, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

export const users = pgSchema('users');

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const accounts = users.table('users', {
  id: text('id').primaryKey(),
  kind: text('kind', { enum: ['guest', 'member'] }).notNull(),
  email: text('email'),
  passwordHash: text('password_hash'),
  createdAt: at('created_at').notNull().defaultNow(),
  registeredAt: at('registered_at'),
  autoUnlock: boolean('auto_unlock').notNull().default(false),
  /** The address its owner proved theirs; the email is verified only while it is this one (0005). */
  verifiedEmail: text('verified_email'),
  /** What the member may do in the admin API (0007): viewer, operator or admin. */
  role: text('role', { enum: ['viewer', 'operator', 'admin'] }).notNull().default('viewer'),
});

export const sessions = users.table('sessions', {
  tokenHash: text('token_hash').primaryKey(),
  userId: text('user_id').notNull(),
  createdAt: at('created_at').notNull().defaultNow(),
  revokedAt: at('revoked_at'),
  lastUsedAt: at('last_used_at').notNull().defaultNow(),
});

export const passwordResets = users.table('password_resets', {
  tokenHash: text('token_hash').primaryKey(),
  userId: text('user_id').notNull(),
  expiresAt: at('expires_at').notNull(),
  usedAt: at('used_at'),
});

export const favorites = users.table(
  'favorites',
  {
    userId: text('user_id').notNull(),
    videoId: text('video_id').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.videoId] })],
);

export const history = users.table(
  'history',
  {
    userId: text('user_id').notNull(),
    videoId: text('video_id').notNull(),
    episodeId: text('episode_id').notNull(),
    episodeNumber: integer('episode_number').notNull(),
    positionSeconds: integer('position_seconds').notNull(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.videoId] })],
);

export const identities = users.table(
  'identities',
  {
    provider: text('provider').notNull(),
    subject: text('subject').notNull(),
    userId: text('user_id').notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.provider, table.subject] })],
);

export const oauthFlows = users.table('oauth_flows', {
  stateHash: text('state_hash').primaryKey(),
  provider: text('provider').notNull(),
  codeVerifier: text('code_verifier').notNull(),
  nonce: text('nonce'),
  redirectUri: text('redirect_uri').notNull(),
  returnTo: text('return_to').notNull(),
  /** SHA-256 of the binding cookie of the browser that started the sign-in. */
  browserBinding: text('browser_binding').notNull(),
  expiresAt: at('expires_at').notNull(),
});

export const oauthCodes = users.table('oauth_codes', {
  codeHash: text('code_hash').primaryKey(),
  provider: text('provider').notNull(),
  subject: text('subject').notNull(),
  /** The provider's verified email; null when it vouched for none (the account was linked before). */
  email: text('email'),
  /** SHA-256 of the binding cookie of the browser that started the sign-in. */
  browserBinding: text('browser_binding').notNull(),
  expiresAt: at('expires_at').notNull(),
});

export const emailVerifications = users.table('email_verifications', {
  tokenHash: text('token_hash').primaryKey(),
  userId: text('user_id').notNull(),
  /** The address the link was mailed to: it verifies that one only. */
  email: text('email').notNull(),
  createdAt: at('created_at').notNull(),
  expiresAt: at('expires_at').notNull(),
  usedAt: at('used_at'),
});

export const loginThrottle = users.table('login_throttle', {
  /** SHA-256 of the lower-cased email tried. */
  emailHash: text('email_hash').primaryKey(),
  failures: integer('failures').notNull(),
  lastFailureAt: at('last_failure_at').notNull(),
  blockedUntil: at('blocked_until'),
  noticeSentAt: at('notice_sent_at'),
});

export const knownDevices = users.table(
  'known_devices',
  {
    /** SHA-256 of the browser's device cookie. */
    deviceHash: text('device_hash').notNull(),
    userId: text('user_id').notNull(),
    lastLoginAt: at('last_login_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.deviceHash, table.userId] })],
);

/** Admin calls that changed something, as their `admin.audited` events said (0007). */
export const auditLog = users.table('audit_log', {
  id: text('id').primaryKey(),
  at: at('at').notNull(),
  actor: text('actor').notNull(),
  action: text('action').notNull(),
  target: text('target').notNull(),
  before: jsonb('before'),
  after: jsonb('after'),
});
