import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createFileMailer, queryRows, type Mailer } from '@cliffhanger/platform';
import { eventually, silentLogger, startSite, tempDir, type Site } from '@cliffhanger/platform/testing';
import { catalogModule, type LocalCatalogClient } from '@cliffhanger/catalog';
import { transcoderModule } from '@cliffhanger/transcoder';
import { unlockModule } from '@cliffhanger/unlock';
import { userModule } from '../src/index.ts';
import { SESSION_CACHE_MS } from '../src/service.ts';

// Mail is written to files, as without SMTP_URL, after an optional gate: a test closes it to play a mail server that hangs.
const mailDir = tempDir('accounts-mail-');
const files = createFileMailer(mailDir, silentLogger);
let mailGate: Promise<void> = Promise.resolve();
const mailer: Mailer = { kind: 'file', send: async (mail) => (await mailGate, files.send(mail)) };

let gateway: Site;
beforeAll(async () => {
  gateway = await startSite({ modules: [userModule, catalogModule, unlockModule, transcoderModule], mailer });
  // Series video-1 … video-30 of ten planned episodes each (video-N-epM), through the catalog's own operator side.
  const { admin } = gateway.instances.get('catalog')!.client as LocalCatalogClient;
  for (let i = 1; i <= 30; i++) {
    await admin.createSeries({ id: `video-${i}`, title: `Series ${i}`, tags: ['Romance'] });
    await admin.planEpisodes(`video-${i}`, 10);
  }
});
afterAll(() => gateway.close());

let emails = 0;
const newEmail = () => `viewer${Date.now()}-${++emails}@example.com`;
const password = 'correct horse 1';

async function register(token: string | null, email = newEmail()) {
  const answer = await gateway.call('POST', '/api/user/register', { token, body: { email, password, confirmPassword: password } });
  return { ...answer, email, token: answer.headers.get('x-user-token') };
}

const rows = <T>(query: ReturnType<typeof sql>) => queryRows<T>(gateway.platform.database.db, query);
const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

describe('guests', () => {
  it('a first visit creates a guest and hands back its token', async () => {
    const first = await gateway.call('GET', '/api/user');
    expect(first.code).toBe(200);
    expect(first.data).toMatchObject({ kind: 'guest', email: null, coins: 0, vip: null });
    const token = first.headers.get('x-user-token')!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const again = await gateway.call('GET', '/api/user', { token });
    expect(again.data.id).toBe(first.data.id);
    expect(again.headers.get('x-user-token')).toBe(token);
  });

  it('an unknown or malformed token gets a new guest, not an error', async () => {
    for (const token of ['nonsense', 'A'.repeat(43), "' or 1=1 --"]) {
      const answer = await gateway.call('GET', '/api/user', { token });
      expect(answer.code).toBe(200);
      expect(answer.headers.get('x-user-token')).not.toBe(token);
    }
  });

  it('stores tokens only as SHA-256 hashes', async () => {
    const token = await gateway.guest();
    const hash = createHash('sha256').update(token).digest('hex');
    expect(await rows(sql`select 1 as found from users.sessions where token_hash = ${hash}`)).toHaveLength(1);
    expect(await rows(sql`select 1 from users.sessions where token_hash = ${token}`)).toHaveLength(0);
  });
});

describe('registration', () => {
  it('revokes the guest token that became the member; the answer carries a new one', async () => {
    const guest = await gateway.guest();
    expect((await gateway.call('GET', '/api/user/favorite', { token: guest })).code).toBe(200);
    const member = await register(guest);
    expect(member.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(member.token).not.toBe(guest);
    expect((await gateway.call('GET', '/api/user/favorite', { token: guest })).code).toBe(401);
    expect((await gateway.call('GET', '/api/user', { token: member.token })).data).toMatchObject({ id: member.data.id, kind: 'member' });
  });

  it('turns the guest into a member that keeps its favorites and history', async () => {
    const token = await gateway.guest();
    const guest = (await gateway.call('GET', '/api/user', { token })).data;
    await gateway.call('POST', '/api/user/favorite', { token, body: { videoId: 'video-3' } });
    await gateway.call('POST', '/api/user/history', { token, body: { episodeId: 'video-3-ep2', positionSeconds: 12 } });

    const member = await register(token);
    expect(member.code).toBe(200);
    expect(member.data).toMatchObject({ id: guest.id, kind: 'member', email: member.email });
    const favorites = await gateway.call('GET', '/api/user/favorite', { token: member.token });
    expect(favorites.data.items.map((video: { id: string }) => video.id)).toEqual(['video-3']);
    const history = await gateway.call('GET', '/api/user/history', { token: member.token });
    expect(history.data.items[0]).toMatchObject({ video: { id: 'video-3' }, episode: { id: 'video-3-ep2', number: 2 }, positionSeconds: 12 });
  });

  it('hashes the password with argon2id', async () => {
    const member = await register(null);
    const [row] = await rows<{ password_hash: string }>(sql`select password_hash from users.users where id = ${member.data.id}`);
    expect(row!.password_hash).toMatch(/^\$argon2id\$/);
  });

  it('prompts for each missing field with the product texts', async () => {
    const empty = await gateway.call('POST', '/api/user/register', { body: {} });
    expect(empty.code).toBe(422);
    expect(empty.data.fields).toEqual({
      email: 'Please enter your email',
      password: 'Please enter your password',
      confirmPassword: 'Please repeat your password',
    });
  });

  it('rejects a bad email, a short password and a repeat that does not match', async () => {
    const bad = await gateway.call('POST', '/api/user/register', { body: { email: 'not-an-email', password: 'short', confirmPassword: 'other' } });
    expect(bad.code).toBe(422);
    expect(bad.data.fields.email).toBe('Please enter a valid email');
    expect(bad.data.fields.password).toBe('Password must be at least 8 characters');
    const mismatch = await gateway.call('POST', '/api/user/register', { body: { email: newEmail(), password, confirmPassword: `${password}x` } });
    expect(mismatch.data.fields).toEqual({ confirmPassword: 'The passwords do not match' });
  });

  it('answers wrongly typed fields with prompts, never a crash', async () => {
    for (const body of [{ email: 42, password: true, confirmPassword: null }, ['a'], 'text', { email: { $ne: 1 } }]) {
      const answer = await gateway.call('POST', '/api/user/register', { body });
      expect(answer.status).toBe(200);
      expect(answer.code).toBe(422);
    }
  });

  it('answers 409 for an email already taken, whatever its case', async () => {
    const email = newEmail();
    await register(null, email);
    const again = await register(null, email.toUpperCase());
    expect(again.code).toBe(409);
  });

  it('creates one member when 20 registrations of one email race', async () => {
    const email = newEmail();
    const guests = await Promise.all(Array.from({ length: 20 }, () => gateway.guest()));
    const answers = await Promise.all(guests.map((token) => register(token, email)));
    expect(answers.filter((answer) => answer.code === 200)).toHaveLength(1);
    expect(answers.filter((answer) => answer.code === 409)).toHaveLength(19);
    expect(await rows(sql`select id from users.users where lower(email) = lower(${email})`)).toHaveLength(1);
  });

  it('publishes user.registered with the attribution of the request', async () => {
    const email = newEmail();
    const answer = await gateway.call('POST', '/api/user/register?ttclid=tt-query', {
      headers: { 'x-referrer-token': 'ref-42', 'x-fbclid': 'fb-header' },
      body: { email, password, confirmPassword: password },
    });
    const [event] = await rows<{ user_id: string; attribution: unknown; data: unknown }>(
      sql`select user_id, attribution, data from platform.outbox where type = 'user.registered' and data->>'email' = ${email}`,
    );
    expect(event).toMatchObject({
      user_id: answer.data.id,
      attribution: { referrerToken: 'ref-42', fbclid: 'fb-header', ttclid: 'tt-query' },
    });
  });
});

describe('login and logout', () => {
  it('logs a member in with a new token', async () => {
    const member = await register(null);
    const login = await gateway.call('POST', '/api/user/login', { body: { email: member.email, password } });
    expect(login.code).toBe(200);
    expect(login.data).toMatchObject({ id: member.data.id, kind: 'member', email: member.email });
    const token = login.headers.get('x-user-token')!;
    expect(token).not.toBe(member.token);
    expect((await gateway.call('GET', '/api/user', { token })).data.id).toBe(member.data.id);
  });

  it('gives the same message for a wrong password and an unknown email', async () => {
    const member = await register(null);
    const wrong = await gateway.call('POST', '/api/user/login', { body: { email: member.email, password: 'wrong password' } });
    const unknown = await gateway.call('POST', '/api/user/login', { body: { email: newEmail(), password } });
    expect(wrong).toMatchObject({ code: 500, message: 'Incorrect email or password' });
    expect(unknown).toMatchObject({ code: 500, message: 'Incorrect email or password' });
  });

  it('moves a guest’s favorites onto the member who logs in', async () => {
    const member = await register(null);
    const guest = await gateway.guest();
    await gateway.call('POST', '/api/user/favorite', { token: guest, body: { videoId: 'video-9' } });
    const login = await gateway.call('POST', '/api/user/login', { token: guest, body: { email: member.email, password } });
    const favorites = await gateway.call('GET', '/api/user/favorite', { token: login.headers.get('x-user-token') });
    expect(favorites.data.items.map((video: { id: string }) => video.id)).toEqual(['video-9']);
  });

  it('revokes the token on logout', async () => {
    const member = await register(null);
    expect((await gateway.call('POST', '/api/user/logout', { token: member.token, body: {} })).code).toBe(200);
    expect((await gateway.call('GET', '/api/user/favorite', { token: member.token })).code).toBe(401);
    const after = await gateway.call('GET', '/api/user', { token: member.token });
    expect(after.data).toMatchObject({ kind: 'guest' });
    expect(after.data.id).not.toBe(member.data.id);
  });
});

describe('sessions', () => {
  // Tokens straight from register: no call has read them yet, so no process remembers them.
  it('an expired session is refused: unused for SESSION_IDLE_DAYS, its token reads as no token', async () => {
    const member = await register(null);
    await rows(sql`update users.sessions set last_used_at = now() - interval '31 days' where token_hash = ${hashOf(member.token!)}`);
    expect((await gateway.call('GET', '/api/user/favorite', { token: member.token })).code).toBe(401);
    const after = await gateway.call('GET', '/api/user', { token: member.token });
    expect(after.data).toMatchObject({ kind: 'guest' });
    expect(after.data.id).not.toBe(member.data.id);
  });

  it('a session in use stays alive: each use (written at most hourly) starts the idle time again', async () => {
    const member = await register(null);
    await rows(sql`update users.sessions set last_used_at = now() - interval '29 days' where token_hash = ${hashOf(member.token!)}`);
    expect((await gateway.call('GET', '/api/user/favorite', { token: member.token })).code).toBe(200);
    const [row] = await rows<{ fresh: boolean }>(sql`select last_used_at > now() - interval '1 minute' as fresh from users.sessions where token_hash = ${hashOf(member.token!)}`);
    expect(row!.fresh).toBe(true);
  });

  it('a token read once is trusted for a minute without the database; ended behind the site\'s back, it is refused after that', async () => {
    const member = await register(null);
    expect((await gateway.call('GET', '/api/user/favorite', { token: member.token })).code).toBe(200);
    // Ended as nothing in the site ends a session (every way it does tells every process at once).
    await rows(sql`update users.sessions set revoked_at = now() where token_hash = ${hashOf(member.token!)}`);
    const started = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: started });
    try {
      vi.setSystemTime(started + SESSION_CACHE_MS - 5_000);
      expect((await gateway.call('GET', '/api/user/favorite', { token: member.token })).code).toBe(200);
      vi.setSystemTime(started + SESSION_CACHE_MS + 1_000);
      expect((await gateway.call('GET', '/api/user/favorite', { token: member.token })).code).toBe(401);
    } finally {
      vi.useRealTimers();
    }
  });
});

/** The mails to one address so far, oldest first; with `secret`, only those carrying a link with it (`reset`, `verify`). */
const mailsTo = (email: string, secret?: string) =>
  fs
    .readdirSync(mailDir)
    .sort()
    .map((name) => fs.readFileSync(path.join(mailDir, name), 'utf8'))
    .filter((text) => text.startsWith(`To: ${email}\n`) && (!secret || text.includes(`?${secret}=`)));

describe('password reset', () => {
  const linkIn = (text: string) => /reset=([A-Za-z0-9_-]{43})/.exec(text)![1]!;
  async function resetLinksFor(email: string, count: number): Promise<string[]> {
    const mails = await eventually(() => (mailsTo(email, 'reset').length >= count ? mailsTo(email, 'reset') : null), 5_000, `${count} mails to ${email}`);
    return mails.map(linkIn);
  }
  const resetLinkFor = async (email: string) => (await resetLinksFor(email, 1))[0]!;
  const reset = (token: string, password: string) => gateway.call('POST', '/api/user/password/reset', { body: { token, password, confirmPassword: password } });

  it('answers before the mail is written: a mail server that hangs delays nothing', async () => {
    const member = await register(null);
    let open!: () => void;
    mailGate = new Promise((resolve) => (open = resolve));
    try {
      const answer = await gateway.call('POST', '/api/user/password/forgot', { body: { email: member.email } });
      expect(answer).toMatchObject({ status: 200, code: 200, data: null });
      expect(mailsTo(member.email, 'reset')).toEqual([]);
    } finally {
      open();
      mailGate = Promise.resolve();
    }
    expect(await resetLinkFor(member.email)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('mails a member with a long email (254 characters) like any other', async () => {
    const email = `${'x'.repeat(40)}${Date.now()}${'x'.repeat(11)}@${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(57)}.com`;
    expect(email).toHaveLength(254);
    const member = await register(null, email);
    expect(member.code).toBe(200);
    expect(await gateway.call('POST', '/api/user/password/forgot', { body: { email } })).toMatchObject({ code: 200, data: null });
    const token = await resetLinkFor(email);
    expect((await reset(token, 'a long address works')).code).toBe(200);
  });

  it('a successful reset voids every other reset link of that member', async () => {
    const member = await register(null);
    await gateway.call('POST', '/api/user/password/forgot', { body: { email: member.email } });
    await resetLinksFor(member.email, 1);
    await gateway.call('POST', '/api/user/password/forgot', { body: { email: member.email } });
    const [first, second] = await resetLinksFor(member.email, 2);
    expect((await reset(second!, 'the newest link wins')).code).toBe(200);
    expect(await reset(first!, 'an older link is void')).toMatchObject({ code: 500, message: 'This reset link is invalid or has expired' });
  });

  it('answers the same whether or not the email exists', async () => {
    const member = await register(null);
    const known = await gateway.call('POST', '/api/user/password/forgot', { body: { email: member.email } });
    const unknown = await gateway.call('POST', '/api/user/password/forgot', { body: { email: newEmail() } });
    expect(known).toMatchObject({ code: 200, data: null });
    expect(unknown).toMatchObject({ code: 200, data: null, message: known.message });
  });

  it('sets a new password once and ends every session', async () => {
    const member = await register(null);
    const other = await gateway.call('POST', '/api/user/login', { body: { email: member.email, password } });
    await gateway.call('POST', '/api/user/password/forgot', { body: { email: member.email } });
    const token = await resetLinkFor(member.email);
    const newPassword = 'a brand new secret';

    const reset = await gateway.call('POST', '/api/user/password/reset', { body: { token, password: newPassword, confirmPassword: newPassword } });
    expect(reset.code).toBe(200);
    const replay = await gateway.call('POST', '/api/user/password/reset', { body: { token, password: 'yet another one', confirmPassword: 'yet another one' } });
    expect(replay).toMatchObject({ code: 500, message: 'This reset link is invalid or has expired' });

    for (const session of [member.token, other.headers.get('x-user-token')])
      expect((await gateway.call('GET', '/api/user/favorite', { token: session })).code).toBe(401);
    expect((await gateway.call('POST', '/api/user/login', { body: { email: member.email, password } })).code).toBe(500);
    expect((await gateway.call('POST', '/api/user/login', { body: { email: member.email, password: newPassword } })).code).toBe(200);
  });

  it('refuses a reset token after 30 minutes', async () => {
    const member = await register(null);
    await gateway.call('POST', '/api/user/password/forgot', { body: { email: member.email } });
    const token = await resetLinkFor(member.email);
    const hash = createHash('sha256').update(token).digest('hex');
    const [row] = await rows<{ minutes: number }>(
      sql`select round(extract(epoch from expires_at - now()) / 60)::int as minutes from users.password_resets where token_hash = ${hash}`,
    );
    expect(row!.minutes).toBe(30);
    await rows(sql`update users.password_resets set expires_at = now() - interval '1 second' where token_hash = ${hash}`);
    const late = await gateway.call('POST', '/api/user/password/reset', { body: { token, password: 'too late now', confirmPassword: 'too late now' } });
    expect(late.code).toBe(500);
  });
});

describe('verified email', () => {
  const verifyLinksFor = async (email: string, count: number) =>
    (await eventually(() => (mailsTo(email, 'verify').length >= count ? mailsTo(email, 'verify') : null), 5_000, `${count} verification mails`)).map(
      (text) => /verify=([A-Za-z0-9_-]{43})/.exec(text)![1]!,
    );

  it('registering mails a link to /verifyEmail; the account works meanwhile; the link verifies once', async () => {
    const member = await register(null);
    expect(member.data).toMatchObject({ kind: 'member', emailVerified: false });
    expect((await gateway.call('GET', '/api/user/favorite', { token: member.token })).code).toBe(200);
    const [token] = await verifyLinksFor(member.email, 1);
    expect(mailsTo(member.email, 'verify')[0]).toMatch(/\/verifyEmail\?verify=[A-Za-z0-9_-]{43}\n/);
    const [row] = await rows<{ minutes: number }>(
      sql`select round(extract(epoch from expires_at - now()) / 60)::int as minutes from users.email_verifications where token_hash = ${hashOf(token!)}`,
    );
    expect(row!.minutes).toBe(24 * 60);

    const verified = await gateway.call('POST', '/api/user/email/verify', { body: { token } });
    expect(verified.data).toMatchObject({ id: member.data.id, emailVerified: true });
    expect((await gateway.call('GET', '/api/user', { token: member.token })).data.emailVerified).toBe(true);
    expect(await gateway.call('POST', '/api/user/email/verify', { body: { token } })).toMatchObject({
      status: 200,
      code: 422,
      data: { fields: { token: 'This verification link is invalid or has expired' } },
    });
  });

  it('answers bad tokens with 422, never a crash', async () => {
    for (const body of [{}, { token: 'short' }, { token: 'A'.repeat(43) }, { token: 42 }, ['x']])
      expect((await gateway.call('POST', '/api/user/email/verify', { body })).code).toBe(422);
  });

  it('resends to a member only, once a minute: HTTP 429 with Retry-After', async () => {
    const member = await register(null);
    await verifyLinksFor(member.email, 1);
    const again = await gateway.call('POST', '/api/user/email/verification', { token: member.token, body: {} });
    expect(again).toMatchObject({ status: 429, code: 429 });
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
    await rows(sql`update users.email_verifications set created_at = created_at - interval '2 minutes' where user_id = ${member.data.id}`);
    expect((await gateway.call('POST', '/api/user/email/verification', { token: member.token, body: {} })).code).toBe(200);
    await verifyLinksFor(member.email, 2);
    expect((await gateway.call('POST', '/api/user/email/verification', { token: await gateway.guest(), body: {} })).code).toBe(409);
    expect((await gateway.call('POST', '/api/user/email/verification', { body: {} })).code).toBe(401);
  });
});

describe('per-account login throttle', () => {
  const deviceCookieOf = (headers: Headers) => headers.getSetCookie().find((line) => line.startsWith('cliffhanger_device=')) ?? null;
  const login = (email: string, password: string, cookie?: string) =>
    gateway.call('POST', '/api/user/login', { body: { email, password }, headers: cookie ? { cookie } : {} });

  it('ten failures slow new browsers (HTTP 429, Retry-After) and mail the owner once; the browser that logged in before still gets in', async () => {
    const member = await register(null);
    const cookie = deviceCookieOf(member.headers)!;
    const [pair, ...attributes] = cookie.split('; ');
    expect(pair).toMatch(/^cliffhanger_device=[A-Za-z0-9_-]{43}$/);
    expect(attributes).toEqual(expect.arrayContaining(['Max-Age=31536000', 'Path=/api/user', 'HttpOnly', 'SameSite=Strict']));
    for (let i = 0; i < 10; i++) expect((await login(member.email, `guess ${i}`)).code).toBe(500);
    const refused = await login(member.email, password);
    expect(refused).toMatchObject({ status: 429, code: 429 });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);

    const known = await login(member.email, password, pair);
    expect(known.data).toMatchObject({ id: member.data.id });
    const notices = await eventually(() => {
      const found = mailsTo(member.email).filter((text) => text.includes('Subject: Failed logins'));
      return found.length > 0 ? found : null;
    }, 5_000, 'the notice');
    expect(notices).toHaveLength(1);
    // Only its hash is kept.
    expect(await rows(sql`select 1 from users.known_devices where device_hash = ${hashOf(pair!.split('=')[1]!)}`)).toHaveLength(1);
  });
});

describe('settings', () => {
  it('auto-unlock is off for a new viewer and stays as the viewer sets it', async () => {
    const token = await gateway.guest();
    expect((await gateway.call('GET', '/api/user', { token })).data.settings).toEqual({ autoUnlock: false });
    const on = await gateway.call('POST', '/api/user/settings', { token, body: { autoUnlock: true } });
    expect(on.data).toMatchObject({ settings: { autoUnlock: true }, coins: 0, bonusCoins: 0 });
    expect((await gateway.call('GET', '/api/user', { token })).data.settings).toEqual({ autoUnlock: true });
    expect((await gateway.call('POST', '/api/user/settings', { token, body: {} })).data.settings).toEqual({ autoUnlock: true });
  });

  it('refuses a setting of the wrong type, and a caller without a session', async () => {
    const token = await gateway.guest();
    expect(await gateway.call('POST', '/api/user/settings', { token, body: { autoUnlock: 'yes' } })).toMatchObject({ code: 422, data: { fields: { autoUnlock: 'autoUnlock must be true or false' } } });
    expect((await gateway.call('POST', '/api/user/settings', { body: { autoUnlock: true } })).code).toBe(401);
  });
});

describe('favorites', () => {
  it('adds twice without harm, lists newest first, pages and removes', async () => {
    const token = await gateway.guest();
    for (const id of ['video-1', 'video-2', 'video-3', 'video-2']) {
      expect((await gateway.call('POST', '/api/user/favorite', { token, body: { videoId: id } })).code).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const first = await gateway.call('GET', '/api/user/favorite?page=1&size=2', { token });
    expect(first.data).toMatchObject({ page: 1, size: 2, hasMore: true });
    expect(first.data.items.map((video: { id: string }) => video.id)).toEqual(['video-3', 'video-2']);
    expect(first.data.items[0].favoritedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    const second = await gateway.call('GET', '/api/user/favorite?page=2&size=2', { token });
    expect(second.data).toMatchObject({ hasMore: false, items: [{ id: 'video-1' }] });

    await gateway.call('DELETE', '/api/user/favorite', { token, body: { videoId: 'video-3' } });
    const after = await gateway.call('GET', '/api/user/favorite', { token });
    expect(after.data.items.map((video: { id: string }) => video.id)).toEqual(['video-2', 'video-1']);
  });

  it('answers 404 for a video that does not exist and 401 without a user', async () => {
    const token = await gateway.guest();
    expect((await gateway.call('POST', '/api/user/favorite', { token, body: { videoId: 'no-such-video' } })).code).toBe(404);
    expect((await gateway.call('POST', '/api/user/favorite', { body: { videoId: 'video-1' } })).code).toBe(401);
  });

  it('rejects paging outside 1..50', async () => {
    const token = await gateway.guest();
    for (const query of ['page=0', 'size=51', 'size=abc', 'page=1.5']) {
      const answer = await gateway.call('GET', `/api/user/favorite?${query}`, { token });
      expect(answer.code, query).toBe(422);
    }
  });
});

describe('history', () => {
  it('keeps one row per video, latest first, with the position', async () => {
    const token = await gateway.guest();
    const record = (episodeId: string, positionSeconds: number) =>
      gateway.call('POST', '/api/user/history', { token, body: { episodeId, positionSeconds } });
    await record('video-1-ep1', 30);
    await record('video-2-ep1', 5);
    await record('video-1-ep2', 7.9);
    const history = await gateway.call('GET', '/api/user/history', { token });
    expect(history.data.items).toHaveLength(2);
    expect(history.data.items[0]).toMatchObject({ video: { id: 'video-1' }, episode: { id: 'video-1-ep2', number: 2 }, positionSeconds: 7 });
    expect(history.data.items[1]).toMatchObject({ video: { id: 'video-2' }, episode: { number: 1 }, positionSeconds: 5 });
    const events = await rows(sql`select 1 from platform.outbox where type = 'history.recorded'`);
    expect(events.length).toBeGreaterThanOrEqual(3);
  });

  it('refuses an unknown episode and a negative position', async () => {
    const token = await gateway.guest();
    expect((await gateway.call('POST', '/api/user/history', { token, body: { episodeId: 'nope', positionSeconds: 1 } })).code).toBe(404);
    expect((await gateway.call('POST', '/api/user/history', { token, body: { episodeId: 'video-1-ep1', positionSeconds: -3 } })).code).toBe(422);
  });
});
