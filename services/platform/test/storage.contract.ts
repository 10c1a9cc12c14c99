import fs from 'node:fs';
import path from 'node:path';
import { buffer, text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import type { MediaStorage } from '../src/index.ts';
import { tempDir } from '../src/testing/index.ts';

/** A local folder holding `files` (relative path → content), as a transcoder's scratch ladder would. */
function folderOf(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

/** What every media storage adapter does, whatever keeps the bytes (disk, S3). */
export function storageContract(name: string, open: () => MediaStorage) {
  describe(`${name} storage`, () => {
    it('stores, states and reads whole objects and inclusive byte ranges', async () => {
      const storage = open();
      await storage.put('a/b.txt', 'hello world');
      expect(await storage.stat('a/b.txt')).toMatchObject({ size: 11, modifiedAt: expect.any(Date) });
      expect(await text(storage.read('a/b.txt'))).toBe('hello world');
      expect(await text(storage.read('a/b.txt', { start: 6, end: 10 }))).toBe('world');
      await storage.put('a/b.txt', Buffer.from('replaced'));
      expect(await text(storage.read('a/b.txt'))).toBe('replaced');
    });

    it('copies a local file in byte for byte', async () => {
      const storage = open();
      const source = path.join(tempDir(), 'source.mp4');
      const bytes = Buffer.alloc(3 * 1024 * 1024 + 17, 0);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) % 251;
      fs.writeFileSync(source, bytes);
      await storage.putFile('uploads/ep1/source', source);
      expect(await storage.stat('uploads/ep1/source')).toMatchObject({ size: bytes.length });
      expect((await buffer(storage.read('uploads/ep1/source'))).equals(bytes)).toBe(true);
    });

    it('answers null for a missing object, and a read of one fails its stream', async () => {
      const storage = open();
      expect(await storage.stat('no/such/object')).toBeNull();
      await expect(text(storage.read('no/such/object'))).rejects.toThrow();
    });

    it('replaces a whole folder: the new ladder entire, nothing left of the old', async () => {
      const storage = open();
      await storage.putDirectory('episodes/ep1/hls', folderOf({ 'master.m3u8': 'old master', '360p/index.m3u8': 'old', '360p/seg-0.ts': 'old', '720p/seg-0.ts': 'old' }));
      await storage.putDirectory('episodes/ep1/hls', folderOf({ 'master.m3u8': 'new master', '360p/index.m3u8': 'new', '360p/seg-0.ts': 'new', '360p/seg-1.ts': 'new' }));
      expect(await text(storage.read('episodes/ep1/hls/master.m3u8'))).toBe('new master');
      expect(await text(storage.read('episodes/ep1/hls/360p/seg-1.ts'))).toBe('new');
      expect(await storage.stat('episodes/ep1/hls/720p/seg-0.ts')).toBeNull();
    });

    it('lists the objects under a prefix with their sizes, and nothing that only starts with the same letters', async () => {
      const storage = open();
      await storage.put('lake/type=a/date=2026-11-29/1-2.parquet', 'abc');
      await storage.put('lake/type=b/date=2026-11-29/3-4.parquet', 'defgh');
      await storage.put('lakes/other', 'x');
      await storage.putDirectory('lake/type=c', folderOf({ 'date=2026-11-28/5-6.parquet': 'ij' }));
      const listed = await storage.list('lake');
      expect(listed.sort((a, b) => a.key.localeCompare(b.key))).toEqual([
        { key: 'lake/type=a/date=2026-11-29/1-2.parquet', size: 3 },
        { key: 'lake/type=b/date=2026-11-29/3-4.parquet', size: 5 },
        { key: 'lake/type=c/date=2026-11-28/5-6.parquet', size: 2 },
      ]);
      expect(await storage.list('no/such/prefix')).toEqual([]);
    });

    it('removes a prefix and what is under it, and nothing that only starts with the same letters', async () => {
      const storage = open();
      await storage.put('episodes/ep1/hls/master.m3u8', 'one');
      await storage.put('episodes/ep1/poster.jpg', 'poster');
      await storage.put('episodes/ep10/hls/master.m3u8', 'ten');
      await storage.remove('episodes/ep1');
      expect(await storage.stat('episodes/ep1/hls/master.m3u8')).toBeNull();
      expect(await storage.stat('episodes/ep1/poster.jpg')).toBeNull();
      expect(await text(storage.read('episodes/ep10/hls/master.m3u8'))).toBe('ten');
      await storage.remove('episodes/never-stored');
    });

    it('refuses keys that could escape its root', async () => {
      const storage = open();
      for (const key of ['../etc/passwd', '/abs', 'a/../../b', 'a//b', 'a\\..\\b', '']) {
        await expect(storage.put(key, 'x'), key).rejects.toThrow(/invalid storage key/);
        await expect(storage.stat(key), key).rejects.toThrow(/invalid storage key/);
        expect(() => storage.read(key), key).toThrow(/invalid storage key/);
      }
    });
  });
}
