import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/index.ts';

describe('config', () => {
  it('has embedded defaults that serve on 127.0.0.1:8080 with data under ./data', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ HOST: '127.0.0.1', PORT: 8080, TARGET: 'all', DEMO: true });
    expect(config.dataDir.endsWith('/data')).toBe(true);
  });

  it('stops with one line naming the bad variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/^config: PORT: /);
    expect(() => loadConfig({ DATABASE_URL: 'not a url' })).toThrow(/^config: DATABASE_URL: /);
    expect(() => loadConfig({ TARGET: 'everything' })).toThrow(/^config: TARGET: /);
  });

  it('reads DEMO=0 as off', () => {
    expect(loadConfig({ DEMO: '0' }).DEMO).toBe(false);
  });
});
