import fs from 'node:fs';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createDiskStorage, createFileMailer, createPlatform } from '../src/index.ts';
import { silentLogger, tempDir, testConfig } from '../src/testing/index.ts';

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

  it('writes a mail to the longest address under a bounded name, for this user only, and logs neither body nor link', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const dir = path.join(tempDir(), 'mail');
    const to = `${'x'.repeat(64)}@${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(57)}.com`;
    expect(to).toHaveLength(254);
    await createFileMailer(dir, logger).send({ to, subject: 'Reset', text: 'Choose a new password: http://x/retrievePassword?reset=SECRET-LINK' });
    const [file] = fs.readdirSync(dir);
    expect(file!.length).toBeLessThan(128);
    expect(fs.readFileSync(path.join(dir, file!), 'utf8')).toContain(`To: ${to}\n`);
    expect(fs.statSync(path.join(dir, file!)).mode & 0o777).toBe(0o600);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(/SECRET-LINK|retrievePassword|Choose a new password/);
  });
});

describe('the data dir', () => {
  it('is closed to other users, and so are the PGlite files inside (PGlite writes 0666)', async () => {
    const dataDir = path.join(tempDir(), 'data');
    fs.mkdirSync(dataDir, { mode: 0o755 });
    fs.chmodSync(dataDir, 0o755);
    const platform = await createPlatform(testConfig({ DATA_DIR: dataDir }), { logger: silentLogger });
    try {
      expect(platform.database.kind).toBe('pglite');
      await platform.database.rawTransaction((session) => session.exec('create table public.made_while_serving (id int)'));
    } finally {
      await platform.database.close();
    }
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700);
    const open: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if ((fs.statSync(file).mode & 0o077) !== 0) open.push(file);
        if (entry.isDirectory()) walk(file);
      }
    };
    walk(path.join(dataDir, 'pglite'));
    expect(fs.statSync(path.join(dataDir, 'pglite')).mode & 0o777).toBe(0o700);
    expect(open).toEqual([]);
  });
});
