import fs from 'node:fs';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { createDiskStorage, createFileMailer } from '../src/index.ts';
import { silentLogger, tempDir } from '../src/testing.ts';

describe('disk storage', () => {
  it('stores, ranges, replaces directories whole and refuses escaping keys', async () => {
    const storage = createDiskStorage(tempDir());
    await storage.put('a/b.txt', 'hello world');
    expect(await storage.stat('a/b.txt')).toMatchObject({ size: 11 });
    expect(await text(storage.read('a/b.txt', { start: 6, end: 10 }))).toBe('world');

    const first = tempDir();
    fs.writeFileSync(path.join(first, 'old.txt'), 'old');
    await storage.putDirectory('hls/ep1', first);
    const second = tempDir();
    fs.writeFileSync(path.join(second, 'new.txt'), 'new');
    await storage.putDirectory('hls/ep1', second);
    expect(await storage.stat('hls/ep1/old.txt')).toBeNull();
    expect(await storage.stat('hls/ep1/new.txt')).toMatchObject({ size: 3 });
    expect(fs.readdirSync(path.dirname(storage.localPath('hls/ep1')))).toEqual(['ep1']);

    for (const key of ['../etc/passwd', '/abs', 'a/../../b', 'a//b', 'a\\..\\b']) expect(() => storage.localPath(key)).toThrow(/invalid storage key/);
  });
});

describe('file mailer', () => {
  it('writes each mail under the data dir so links work without SMTP', async () => {
    const dir = tempDir();
    await createFileMailer(dir, silentLogger).send({ to: 'a@example.com', subject: 'Reset', text: 'http://x/reset?token=abc' });
    const [file] = fs.readdirSync(dir);
    expect(fs.readFileSync(path.join(dir, file!), 'utf8')).toContain('http://x/reset?token=abc');
  });
});
