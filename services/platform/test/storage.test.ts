import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiskStorage, createFileMailer, createMediaStorage, createPlatform, createS3Storage } from '../src/index.ts';
import { silentLogger, startObjectStore, tempDir, testConfig, type ObjectStore } from '../src/testing/index.ts';
import { storageContract } from './storage.contract.ts';

storageContract('disk', () => createDiskStorage(tempDir()));

// The S3 adapter against a real S3-protocol server on loopback (s3rver), as it talks to AWS or MinIO.
let s3: ObjectStore;
beforeAll(async () => {
  s3 = await startObjectStore('cliffhanger-media');
});
afterAll(() => s3?.close());

let bucketPrefix = 0;
storageContract('S3', () => createS3Storage({ bucket: s3.bucket, prefix: `run-${process.pid}/t${++bucketPrefix}`, endpoint: s3.endpoint, region: 'us-east-1', credentials: s3.credentials }));

describe('choosing the storage', () => {
  it('keeps media under DATA_DIR without S3_BUCKET, and in the bucket with it', async () => {
    const dataDir = tempDir();
    const disk = createMediaStorage(testConfig({ DATA_DIR: dataDir }));
    expect(disk.kind).toBe('disk');
    await disk.put('a/b.txt', 'on disk');
    expect(fs.readFileSync(path.join(dataDir, 'media', 'a/b.txt'), 'utf8')).toBe('on disk');

    const bucket = createMediaStorage(
      testConfig({ ...s3.env, S3_PREFIX: 'chosen' }),
    );
    expect(bucket.kind).toBe('s3');
    await bucket.put('a/b.txt', 'in the bucket');
    const raw = createS3Storage({ bucket: s3.bucket, endpoint: s3.endpoint, region: 'us-east-1', credentials: s3.credentials });
    expect(await raw.stat('chosen/a/b.txt')).toMatchObject({ size: 13 });
  });

  it('refuses a bucket name S3 would refuse, naming the variable', () => {
    expect(() => testConfig({ S3_BUCKET: 'Not_A_Bucket' })).toThrow(/config: S3_BUCKET: an S3 bucket name/);
  });
});

describe('disk storage', () => {
  it('replaces a folder leaving no staging beside it', async () => {
    const root = tempDir();
    const storage = createDiskStorage(root);
    for (const content of ['old', 'new']) {
      const dir = tempDir();
      fs.writeFileSync(path.join(dir, `${content}.txt`), content);
      await storage.putDirectory('hls/ep1', dir);
    }
    expect(fs.readdirSync(path.join(root, 'hls'))).toEqual(['ep1']);
    expect(fs.readdirSync(path.join(root, 'hls/ep1'))).toEqual(['new.txt']);
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
