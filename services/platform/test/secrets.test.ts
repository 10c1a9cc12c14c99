import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, serverSecret } from '../src/index.ts';
import { testConfig } from '../src/testing/index.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

// The MEDIA_SECRET a laptop makes for itself (embedded, no DATABASE_URL), kept under DATA_DIR.
const secretFile = (dataDir: string) => path.join(dataDir, 'secrets', 'media_secret');

describe('the MEDIA_SECRET made under DATA_DIR', () => {
  it('is written whole under its name, readable by its owner only, and read back the same', () => {
    const config = testConfig();
    const secret = serverSecret(config, 'MEDIA_SECRET');
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fs.readFileSync(secretFile(config.dataDir), 'utf8')).toBe(secret);
    expect(fs.statSync(secretFile(config.dataDir)).mode & 0o777).toBe(0o600);
    // Nothing half-written left beside it.
    expect(fs.readdirSync(path.dirname(secretFile(config.dataDir)))).toEqual(['media_secret']);
    expect(serverSecret(config, 'MEDIA_SECRET')).toBe(secret);
  });

  it('is refused when empty or short, as a crash between creating and writing it could leave it: nothing is signed with it', () => {
    for (const left of ['', '\n', 'short-secret']) {
      const config = testConfig();
      fs.mkdirSync(path.dirname(secretFile(config.dataDir)), { recursive: true });
      fs.writeFileSync(secretFile(config.dataDir), left);
      expect(() => serverSecret(config, 'MEDIA_SECRET')).toThrow(ConfigError);
      expect(() => serverSecret(config, 'MEDIA_SECRET')).toThrow(
        `config: MEDIA_SECRET: ${secretFile(config.dataDir)} holds ${left.trim().length} characters, fewer than 32: delete it to have a new one made (playback links signed with the old one stop working), or set MEDIA_SECRET`,
      );
      // Left as it was, for the operator to look at.
      expect(fs.readFileSync(secretFile(config.dataDir), 'utf8')).toBe(left);
    }
  });

  it('is one for every process sharing DATA_DIR: a file another made first is taken, not replaced', () => {
    const config = testConfig();
    const theirs = 'made-by-another-process-0123456789-abcdefghij';
    fs.mkdirSync(path.dirname(secretFile(config.dataDir)), { recursive: true });
    fs.writeFileSync(secretFile(config.dataDir), theirs);
    expect(serverSecret(config, 'MEDIA_SECRET')).toBe(theirs);
  });
});
