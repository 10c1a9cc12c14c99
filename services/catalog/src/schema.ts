import { bigint, boolean, date, integer, pgSchema, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

export const catalog = pgSchema('catalog');

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const tags = catalog.table('tags', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  position: integer('position').notNull(),
});

export const videos = catalog.table('videos', {
  id: text('id').primaryKey(),
  title: text('title').notNull(),
  description: text('description').notNull().default(''),
  coverKey: text('cover_key'),
  freeEpisodes: integer('free_episodes').notNull().default(5),
  priceCoins: integer('price_coins').notNull().default(50),
  episodeCount: integer('episode_count').notNull().default(0),
  playCount: bigint('play_count', { mode: 'number' }).notNull().default(0),
  /** Hidden by an operator: viewers find it nowhere, and its page answers 404 (migrations/0007). */
  hidden: boolean('hidden').notNull().default(false),
  createdAt: at('created_at').notNull().defaultNow(),
});

export const videoTags = catalog.table(
  'video_tags',
  {
    videoId: text('video_id').notNull(),
    tagId: text('tag_id').notNull(),
  },
  (table) => [primaryKey({ columns: [table.videoId, table.tagId] })],
);

export type EpisodeStatus = 'planned' | 'pending' | 'ready' | 'failed';

export const episodes = catalog.table('episodes', {
  id: text('id').primaryKey(),
  videoId: text('video_id').notNull(),
  number: integer('number').notNull(),
  title: text('title').notNull(),
  durationSeconds: integer('duration_seconds').notNull().default(0),
  status: text('status', { enum: ['planned', 'pending', 'ready', 'failed'] }).notNull().default('pending'),
  uploadId: text('upload_id'),
  sourceKey: text('source_key'),
  mediaPrefix: text('media_prefix'),
  error: text('error'),
  createdAt: at('created_at').notNull().defaultNow(),
});

export const sections = catalog.table('sections', {
  id: text('id').primaryKey(),
  title: text('title').notNull(),
  kind: text('kind', { enum: ['carousel', 'section'] }).notNull(),
  position: integer('position').notNull(),
});

export const sectionItems = catalog.table(
  'section_items',
  {
    sectionId: text('section_id').notNull(),
    videoId: text('video_id').notNull(),
    position: integer('position').notNull(),
  },
  (table) => [primaryKey({ columns: [table.sectionId, table.videoId] })],
);

export const playDays = catalog.table(
  'play_days',
  {
    userId: text('user_id').notNull(),
    episodeId: text('episode_id').notNull(),
    day: date('day').notNull(),
  },
  (table) => [primaryKey({ columns: [table.userId, table.episodeId, table.day] })],
);

export const demoSeed = catalog.table('demo_seed', {
  id: integer('id').primaryKey(),
  startedAt: at('started_at').notNull().defaultNow(),
  finishedAt: at('finished_at'),
});

/** WebVTT subtitles of an episode, one per language; the file lives in media storage under `storageKey`. */
export const subtitles = catalog.table(
  'subtitles',
  {
    episodeId: text('episode_id').notNull(),
    lang: text('lang', { enum: ['en', 'es', 'fy', 'dy', 'pt'] }).notNull(),
    storageKey: text('storage_key').notNull(),
    bytes: integer('bytes').notNull(),
    cues: integer('cues').notNull(),
    uploadedAt: at('uploaded_at').notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.episodeId, table.lang] })],
);
