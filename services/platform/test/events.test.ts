import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvent, queryRows, systemContext, type Database } from '../src/index.ts';
import { openMigratedDatabase } from '../src/testing/index.ts';

describe('event payloads follow proto/', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openMigratedDatabase();
  });
  afterAll(() => database.close());

  const append = (type: 'favorite.changed' | 'transcode.failed', data: Record<string, unknown>) =>
    database.transaction((tx) => appendEvent(tx, systemContext(), type, data));

  it('writes a payload that matches its schema', async () => {
    const event = await append('favorite.changed', { videoId: 'v1', favorite: true });
    expect(await queryRows(database.db, sql`select data from platform.outbox where event_id = ${event.id}`)).toEqual([
      { data: { videoId: 'v1', favorite: true } },
    ]);
  });

  it('refuses an unknown field or a wrong type, and writes nothing', async () => {
    await expect(append('favorite.changed', { videoId: 'v1', favourite: true })).rejects.toThrow(/favorite.changed payload does not match proto/);
    await expect(append('transcode.failed', { episodeId: 7 })).rejects.toThrow(/transcode.failed payload does not match/);
    expect(await queryRows(database.db, sql`select 1 from platform.outbox where data->>'favourite' is not null`)).toEqual([]);
  });
});
