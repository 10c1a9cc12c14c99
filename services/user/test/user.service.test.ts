import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileMailer, createPostgresBus, queryRows, systemContext, type Database, type Mail, type Mailer, type RequestContext } from '@cliffhanger/platform';
import { eventually, openMigratedDatabase, silentLogger, tempDir } from '@cliffhanger/platform/testing';
import type { VideoCard } from '@cliffhanger/catalog';
import { createUserService, userModule, WRONG_CREDENTIALS, type UserService } from '../src/index.ts';

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
const usersWith = (mailer: Mailer, now?: () => Date) =>
  createUserService({
    now,
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
  database = await openMigratedDatabase(userModule);
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

  it('a token ended in one process is refused at once by another that had read it (their caches are told)', async () => {
    // Two user services on one database, as two replicas are: each remembers the tokens it read.
    const other = usersWith(createFileMailer(tempDir('user-mail-'), silentLogger));
    const [stopOne, stopOther] = await Promise.all([users.watchEndedSessions(), other.watchEndedSessions()]);
    try {
      const address = email();
      const member = await users.register(systemContext('test'), address, 'long enough 1');
      const elsewhere = await users.login(systemContext('test'), address, 'long enough 1');
      expect(await other.authenticate(member.token)).toBe(member.user.id);
      expect(await other.authenticate(elsewhere.token)).toBe(member.user.id);
      await users.logout(member.token);
      await eventually(async () => (await other.authenticate(member.token)) === null, 5_000, 'the other process to refuse the ended token');
      // The member's other session stands: only a cache was emptied.
      expect(await other.authenticate(elsewhere.token)).toBe(member.user.id);
    } finally {
      await Promise.all([stopOne(), stopOther()]);
    }
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
    let gate = new Promise<void>((resolve) => (open = resolve));
    const sent: Mail[] = [];
    const slowUsers = usersWith({ kind: 'smtp', send: async (mail) => void (await gate, sent.push(mail)) });
    const address = email();
    await slowUsers.register(systemContext('test'), address, 'long enough 1');
    open();
    await slowUsers.mailSent();
    expect(sent.map((mail) => mail.subject)).toEqual(['Confirm your email for Cliffhanger']);
    sent.length = 0;
    let openAgain!: () => void;
    gate = new Promise<void>((resolve) => (openAgain = resolve));

    expect(slowUsers.forgotPassword(address)).toBeUndefined();
    slowUsers.forgotPassword(email()); // nobody's: nothing is sent
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sent).toEqual([]);
    openAgain();
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

describe('verified email and the per-account login throttle, on a clock the test moves', () => {
  let clock = new Date('2030-01-01T12:00:00Z');
  const sent: Mail[] = [];
  let timed: UserService;
  beforeAll(() => {
    timed = usersWith({ kind: 'smtp', send: async (mail) => void sent.push(mail) }, () => clock);
  });
  const minutes = (n: number) => (clock = new Date(clock.getTime() + n * 60_000));
  const linksTo = async (address: string) => {
    await timed.mailSent();
    return sent.filter((mail) => mail.to === address && mail.subject.startsWith('Confirm')).map((mail) => /verify=([A-Za-z0-9_-]{43})/.exec(mail.text)![1]!);
  };

  it('a verification link works once, within 24 hours, and only for the address it was mailed to', async () => {
    const address = email();
    const member = await timed.register(systemContext('test'), address, 'long enough 1');
    expect(member.user.emailVerified).toBe(false);
    const [first] = await linksTo(address);
    minutes(24 * 60 + 1);
    await expect(timed.verifyEmail(first!)).rejects.toMatchObject({ code: 422 });

    minutes(1);
    await timed.resendVerification(as(member.user.id));
    const [, second] = await linksTo(address);
    expect((await timed.verifyEmail(second!)).emailVerified).toBe(true);
    await expect(timed.verifyEmail(second!)).rejects.toMatchObject({ code: 422 });
    await expect(timed.resendVerification(as(member.user.id))).rejects.toMatchObject({ code: 409 });
  });

  it('changing the email unverifies it: verified means the very address that was proved', async () => {
    const address = email();
    const member = await timed.register(systemContext('test'), address, 'long enough 1');
    const [link] = await linksTo(address);
    const other = email();
    await database.db.execute(sql`update users.users set email = ${other} where id = ${member.user.id}`);
    // The old address's link verifies neither address.
    await expect(timed.verifyEmail(link!)).rejects.toMatchObject({ code: 422 });
    minutes(2);
    await timed.resendVerification(as(member.user.id));
    const [newLink] = await linksTo(other);
    await timed.verifyEmail(newLink!);
    const [row] = await queryRows<{ verified_email: string }>(database.db, sql`select verified_email from users.users where id = ${member.user.id}`);
    expect(row!.verified_email).toBe(other);
    await database.db.execute(sql`update users.users set email = ${email()} where id = ${member.user.id}`);
    const login = await queryRows<{ email: string }>(database.db, sql`select email from users.users where id = ${member.user.id}`);
    expect((await timed.login(systemContext('test'), login[0]!.email, 'long enough 1')).user.emailVerified).toBe(false);
  });

  it('resending is paced: once a minute, five a day, 429 with the seconds to wait', async () => {
    const member = await timed.register(systemContext('test'), email(), 'long enough 1');
    await expect(timed.resendVerification(as(member.user.id))).rejects.toMatchObject({ code: 429, retryAfterSeconds: 60 });
    for (let i = 0; i < 4; i++) {
      minutes(1);
      await timed.resendVerification(as(member.user.id));
    }
    minutes(1);
    // Five links in the day (the registration's and four more): the next once the first is a day old.
    await expect(timed.resendVerification(as(member.user.id))).rejects.toMatchObject({ code: 429, retryAfterSeconds: (24 * 60 - 5) * 60 });
    await expect(timed.resendVerification(systemContext('test'))).rejects.toMatchObject({ code: 401 });
  });

  it('ten failures slow an account for a growing delay, without checking the password; a known browser and a reset still get in', async () => {
    const address = email();
    const owner = await timed.register(systemContext('test'), address, 'long enough 1');
    const guess = () => timed.login(systemContext('test'), address, 'a wrong guess');
    for (let i = 0; i < 10; i++) await expect(guess()).rejects.toMatchObject({ code: 500, message: WRONG_CREDENTIALS });
    // The right password from a new browser is refused too while the account is slowed.
    await expect(timed.login(systemContext('test'), address, 'long enough 1')).rejects.toMatchObject({ code: 429, retryAfterSeconds: 60 });
    // The browser that registered is known: the owner logs in.
    expect((await timed.login(systemContext('test'), address, 'long enough 1', owner.device)).user.id).toBe(owner.user.id);
    await timed.mailSent();
    expect(sent.filter((mail) => mail.to === address && mail.subject.startsWith('Failed logins'))).toHaveLength(1);

    minutes(1);
    await expect(guess()).rejects.toMatchObject({ code: 500 });
    await expect(guess()).rejects.toMatchObject({ code: 429, retryAfterSeconds: 120 });
    minutes(2);
    await expect(guess()).rejects.toMatchObject({ code: 500 });
    await expect(guess()).rejects.toMatchObject({ code: 429, retryAfterSeconds: 240 });
    await timed.mailSent();
    expect(sent.filter((mail) => mail.to === address && mail.subject.startsWith('Failed logins'))).toHaveLength(1);

    // An unknown email is slowed the same way: the throttle tells nobody which emails exist.
    const nobody = email();
    for (let i = 0; i < 10; i++) await expect(timed.login(systemContext('test'), nobody, 'x')).rejects.toMatchObject({ code: 500 });
    await expect(timed.login(systemContext('test'), nobody, 'x')).rejects.toMatchObject({ code: 429 });

    // 15 quiet minutes after the block ends the run.
    minutes(4 + 15);
    await expect(guess()).rejects.toMatchObject({ code: 500 });
    await expect(guess()).rejects.toMatchObject({ code: 500 });
  });

  it('logins to one account at once, right and wrong, from new browsers each get an answer: the run is counted and ended as they come', async () => {
    const address = email();
    await timed.register(systemContext('test'), address, 'long enough 1');
    // Fewer than the ten failures that slow an account, however they interleave.
    const answers = await Promise.allSettled(
      Array.from({ length: 9 }, (_, i) => timed.login(systemContext('test'), address, i % 3 === 0 ? 'a wrong guess' : 'long enough 1')),
    );
    expect(answers.filter((answer) => answer.status === 'fulfilled')).toHaveLength(6);
    expect(answers.flatMap((answer) => (answer.status === 'rejected' ? [answer.reason.message] : []))).toEqual(Array(3).fill(WRONG_CREDENTIALS));
  });

  it('a password reset ends the run and makes its browser known', async () => {
    const address = email();
    await timed.register(systemContext('test'), address, 'long enough 1');
    for (let i = 0; i < 10; i++) await expect(timed.login(systemContext('test'), address, 'wrong')).rejects.toMatchObject({ code: 500 });
    await expect(timed.login(systemContext('test'), address, 'long enough 1')).rejects.toMatchObject({ code: 429 });
    timed.forgotPassword(address);
    await timed.mailSent();
    const reset = /reset=([A-Za-z0-9_-]{43})/.exec(sent.filter((mail) => mail.to === address && mail.subject.startsWith('Reset')).at(-1)!.text)![1]!;
    const { device } = await timed.resetPassword(reset, 'a new secret 2');
    const back = await timed.login(systemContext('test'), address, 'a new secret 2');
    // The reset came through the mailbox: the email is verified too.
    expect(back.user.emailVerified).toBe(true);
    for (let i = 0; i < 10; i++) await expect(timed.login(systemContext('test'), address, 'wrong')).rejects.toMatchObject({ code: 500 });
    expect((await timed.login(systemContext('test'), address, 'a new secret 2', device)).user.email).toBe(address);
  });
});
