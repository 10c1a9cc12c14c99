import { boolean, integer, pgSchema, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

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
