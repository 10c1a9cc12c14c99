import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileMailer, createPostgresBus, migrate, platformMigrations, queryRows, systemContext, type Database, type Mail, type Mailer, type RequestContext } from '@cliffhanger/platform';
import { openTestDatabase, silentLogger, tempDir } from '@cliffhanger/platform/testing';
import type { VideoCard } from '@cliffhanger/catalog';
import { createUserService, userMigrations, WRONG_CREDENTIALS, type UserService } from '../src/index.ts';

// The user service's rules on a real database (PGlite, or PostgreSQL in npm test's second pass),
// without HTTP, in the spirit of Immich's medium tests. The catalog is another service: its client
// is answered from a table of two series here.
const cards = new Map<string, VideoCard>(
  ['alpha', 'beta'].map((id) => [id, { id, title: `Series ${id}`, cover: '', tags: [], episodeCount: 3, playCount: 0 }]),
);
const catalog = {
  cardsOf: async (ids: string[]) => new Map(ids.flatMap((id) => (cards.has(id) ? [[id, cards.get(id)!] as const] : []))),
  episodeRef: async (episodeId: string) => {
    const match = /^(alpha|beta)-ep(\d)$/.exec(episodeId);
    return match ? { videoId: match[1]!, number: Number(match[2]) } : null;
  },
  episodeTerms: async () => null,
};
// Coins and VIP are the unlock service's: a standing of its own here, coins for the users in `rich`.
const rich = new Set<string>();
const standing = { standingOf: async (id: string) => (rich.has(id) ? { coins: 7, bonusCoins: 2, vip: null } : { coins: 0, bonusCoins: 0, vip: null }) };

let database: Database;
let users: UserService;
const usersWith = (mailer: Mailer) =>
  createUserService({
    database,
    bus: createPostgresBus(database, silentLogger),
    mailer,
    catalog,
    standing,
    logger: silentLogger,
    publicUrl: 'https://cliffhanger.example/',
    sessionIdleDays: 30,
  });
beforeAll(async () => {
  database = await openTestDatabase();
  await migrate(database, 'platform', platformMigrations);
  await migrate(database, 'user', userMigrations);
  users = usersWith(createFileMailer(tempDir('user-mail-'), silentLogger));
});
afterAll(() => database?.close());

const as = (userId: string): RequestContext => ({ ...systemContext('test'), userId });
let emails = 0;
const email = () => `service${Date.now()}-${++emails}@example.com`;

describe('the user service on a real database', () => {
  it('a guest who registers is the same user, with its favorites and history', async () => {
    const guest = await users.currentUser(systemContext('test'), undefined);
    rich.add(guest.user.id);
    await users.setFavorite(as(guest.user.id), 'alpha', true);
    await users.recordHistory(as(guest.user.id), 'beta-ep2', 40);
    const member = await users.register(as(guest.user.id), email(), 'long enough 1');
    expect(member.user).toMatchObject({ id: guest.user.id, kind: 'member', coins: 7, bonusCoins: 2, vip: null });
    expect((await users.favorites(as(member.user.id), 1, 20)).items.map((card) => card.id)).toEqual(['alpha']);
    expect((await users.history(as(member.user.id), 1, 20)).items[0]).toMatchObject({ episode: { id: 'beta-ep2', number: 2 }, positionSeconds: 40 });
  });

  it('a wrong password and an unknown email read the same', async () => {
    const address = email();
    const guest = await users.currentUser(systemContext('test'), undefined);
    await users.register(as(guest.user.id), address, 'long enough 1');
    await expect(users.login(systemContext('test'), address, 'not the one')).rejects.toMatchObject({ code: 500, message: WRONG_CREDENTIALS });
    await expect(users.login(systemContext('test'), email(), 'not the one')).rejects.toMatchObject({ code: 500, message: WRONG_CREDENTIALS });
  });

  it('a logged-out token no longer authenticates', async () => {
    const guest = await users.currentUser(systemContext('test'), undefined);
    expect(await users.authenticate(guest.token)).toBe(guest.user.id);
    await users.logout(guest.token);
    expect(await users.authenticate(guest.token)).toBeNull();
  });

  it('refuses a favorite of a series the catalog does not have, and history of an unknown episode', async () => {
    const guest = await users.currentUser(systemContext('test'), undefined);
    await expect(users.setFavorite(as(guest.user.id), 'gamma', true)).rejects.toMatchObject({ code: 404 });
    await expect(users.recordHistory(as(guest.user.id), 'gamma-ep1', 5)).rejects.toMatchObject({ code: 404 });
  });

  it('writes user.registered to the outbox in the same transaction as the member', async () => {
    const guest = await users.currentUser(systemContext('test'), undefined);
    const address = email();
    await users.register(as(guest.user.id), address, 'long enough 1');
    const events = await queryRows<{ user_id: string; data: { email: string } }>(database.db, sql`select user_id, data from platform.outbox where type = 'user.registered' and user_id = ${guest.user.id}`);
    expect(events).toEqual([{ user_id: guest.user.id, data: expect.objectContaining({ email: address }) }]);
  });

  it('refuses a session unused for SESSION_IDLE_DAYS; one in use slides on, written down at most hourly', async () => {
    const lastUsed = async (token: string, ago: string) => {
      const hash = createHash('sha256').update(token).digest('hex');
      await queryRows(database.db, sql`update users.sessions set last_used_at = now() - ${ago}::interval where token_hash = ${hash}`);
      return async () =>
        (await queryRows<{ minutes: number }>(database.db, sql`select round(extract(epoch from now() - last_used_at) / 60)::int as minutes from users.sessions where token_hash = ${hash}`))[0]!.minutes;
    };
    // Fresh tokens: none has been read yet, so no process remembers it.
    const idle = await users.currentUser(systemContext('test'), undefined);
    await lastUsed(idle.token, '30 days 1 minute');
    expect(await users.authenticate(idle.token)).toBeNull();

    const returning = await users.currentUser(systemContext('test'), undefined);
    const returningAge = await lastUsed(returning.token, '29 days');
    expect(await users.authenticate(returning.token)).toBe(returning.user.id);
    expect(await returningAge()).toBe(0);

    const busy = await users.currentUser(systemContext('test'), undefined);
    const busyAge = await lastUsed(busy.token, '30 minutes');
    expect(await users.authenticate(busy.token)).toBe(busy.user.id);
    expect(await busyAge()).toBe(30);
  });

  it('registering revokes the guest token; the member signs in with the new one', async () => {
    const guest = await users.currentUser(systemContext('test'), undefined);
    expect(await users.authenticate(guest.token)).toBe(guest.user.id);
    const member = await users.register(as(guest.user.id), email(), 'long enough 1');
    expect(member.token).not.toBe(guest.token);
    expect(await users.authenticate(guest.token)).toBeNull();
    expect(await users.authenticate(member.token)).toBe(guest.user.id);
  });

  it('forgot-password returns before the mail is written, and the mail links to PUBLIC_URL', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const sent: Mail[] = [];
    const slowUsers = usersWith({ kind: 'smtp', send: async (mail) => void (await gate, sent.push(mail)) });
    const address = email();
    await slowUsers.register(systemContext('test'), address, 'long enough 1');

    expect(slowUsers.forgotPassword(address)).toBeUndefined();
    slowUsers.forgotPassword(email()); // nobody's: nothing is sent
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sent).toEqual([]);
    open();
    await slowUsers.mailSent();
    expect(sent.map((mail) => mail.to)).toEqual([address]);
    expect(sent[0]!.text).toMatch(/https:\/\/cliffhanger\.example\/retrievePassword\?reset=[A-Za-z0-9_-]{43}\n/);
  });

  it('purges guests that never did anything once their sessions lapsed, and keeps every other account', async () => {
    const idle = await users.currentUser(systemContext('test'), undefined);
    const watcher = await users.currentUser(systemContext('test'), undefined);
    await users.recordHistory(as(watcher.user.id), 'alpha-ep1', 3);
    const buyer = await users.currentUser(systemContext('test'), undefined);
    rich.add(buyer.user.id);
    const fresh = await users.currentUser(systemContext('test'), undefined);
    // Three of them were made, and last used their sessions, 40 days ago.
    for (const id of [idle.user.id, watcher.user.id, buyer.user.id]) {
      await database.db.execute(sql`update users.users set created_at = now() - interval '40 days' where id = ${id}`);
      await database.db.execute(sql`update users.sessions set last_used_at = now() - interval '40 days' where user_id = ${id}`);
    }
    expect(await users.purgeIdleGuests(30)).toBe(1);
    const left = await queryRows<{ id: string }>(database.db, sql`select id from users.users where id in (${idle.user.id}, ${watcher.user.id}, ${buyer.user.id}, ${fresh.user.id})`);
    expect(left.map((row) => row.id).sort()).toEqual([watcher.user.id, buyer.user.id, fresh.user.id].sort());
    expect(await users.authenticate(idle.token)).toBeNull();
  });

  it('prunes sessions revoked or unused past the idle limit, and spent reset links, keeping live ones', async () => {
    const live = await users.currentUser(systemContext('test'), undefined);
    const idle = await users.currentUser(systemContext('test'), undefined);
    const revoked = await users.currentUser(systemContext('test'), undefined);
    await users.logout(revoked.token);
    await database.db.execute(sql`update users.sessions set last_used_at = now() - interval '60 days' where user_id = ${idle.user.id}`);
    await database.db.execute(sql`update users.sessions set revoked_at = now() - interval '2 days' where user_id = ${revoked.user.id}`);
    const pruned = await users.pruneSessions();
    expect(pruned.sessions).toBeGreaterThanOrEqual(2);
    const left = await queryRows<{ user_id: string }>(database.db, sql`select user_id from users.sessions where user_id in (${live.user.id}, ${idle.user.id}, ${revoked.user.id})`);
    expect(left.map((row) => row.user_id)).toEqual([live.user.id]);
    expect(await users.authenticate(live.token)).toBe(live.user.id);
  });
});
