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
