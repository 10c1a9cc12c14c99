import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, requireMail } from '../src/index.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

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
    // A well-formed TARGET naming an unknown module is the registry's to refuse (gateway/test/targets.test.ts).
    expect(() => loadConfig({ TARGET: 'User Catalog' })).toThrow(/^config: TARGET: /);
  });

  it('trusts no proxy unless TRUST_PROXY names hops or addresses, and refuses anything else', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).TRUST_PROXY).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, fd00::/8,loopback, 192.0.2.7' }).TRUST_PROXY).toEqual(['10.0.0.0/8', 'fd00::/8', 'loopback', '192.0.2.7']);
    for (const value of ['true', 'all', '10.0.0.0/33', '10.0.0/8', 'example.com'])
      expect(() => loadConfig({ TRUST_PROXY: value }), value).toThrow(/^config: TRUST_PROXY: /);
  });

  it('requires PUBLIC_URL in production, and SMTP_URL only of the modules that mail', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/^config: PUBLIC_URL: required when NODE_ENV=production$/);
    // A process that sends no mail (the transcoder, the gateway) runs without SMTP_URL, so its secret holds none.
    const noMail = loadConfig({ NODE_ENV: 'production', PUBLIC_URL: 'https://cliffhanger.example' });
    expect(noMail.SMTP_URL).toBeUndefined();
    expect(() => requireMail(noMail, 'user', 'password reset links')).toThrow(
      /^config: SMTP_URL: required when NODE_ENV=production and this process runs user, which mails password reset links$/,
    );
    expect(() => requireMail(loadConfig({ NODE_ENV: 'production', SMTP_URL: 'smtp://mail:25', PUBLIC_URL: 'https://cliffhanger.example' }), 'user', 'links')).not.toThrow();
    expect(() => requireMail(loadConfig({}), 'user', 'links')).not.toThrow();
  });

  it('takes a METRICS_TOKEN of 16 characters or more', () => {
    expect(loadConfig({ METRICS_TOKEN: 'metrics-token-0123456789' }).METRICS_TOKEN).toBe('metrics-token-0123456789');
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/^config: METRICS_TOKEN: /);
  });

  it('has per-minute limits and a sliding session lifetime by default', () => {
    expect(loadConfig({})).toMatchObject({
      RATE_LIMIT_AUTH_PER_MINUTE: 20,
      RATE_LIMIT_GUEST_PER_MINUTE: 30,
      RATE_LIMIT_HISTORY_PER_MINUTE: 120,
      RATE_LIMIT_PIXEL_PER_MINUTE: 600,
      SESSION_IDLE_DAYS: 30,
    });
    expect(() => loadConfig({ RATE_LIMIT_GUEST_PER_MINUTE: '0' })).toThrow(/^config: RATE_LIMIT_GUEST_PER_MINUTE: /);
  });

  it('reads DEMO=0 as off', () => {
    expect(loadConfig({ DEMO: '0' }).DEMO).toBe(false);
  });
});
