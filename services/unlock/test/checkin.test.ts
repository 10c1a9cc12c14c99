import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSite, type Site } from '@cliffhanger/platform/testing';
import { catalogModule } from '@cliffhanger/catalog';
import { transcoderModule } from '@cliffhanger/transcoder';
import { userModule } from '@cliffhanger/user';
import { unlockModule } from '../src/index.ts';

// The check-in calls through the whole site, as the storefront makes them: a guest's token, the
// viewer's time zone in `x-time-zone`, the envelope.
let site: Site;
beforeAll(async () => {
  site = await startSite({ modules: [userModule, catalogModule, unlockModule, transcoderModule] });
});
afterAll(() => site.close());

const TWENTY_HOURS = 20 * 3_600_000;

/**
 * The calendar day in `zone` just before and just after a call (the call's day is one of them), and
 * whether `nextAt` of its answer is when the next check-in opens: the zone's next midnight (`midnight`,
 * in UTC), or 20 hours after the call when that comes later.
 */
async function dayAround<T>(zone: string, call: () => Promise<T>) {
  const dayNow = () => new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(new Date());
  const [before, dayBefore] = [Date.now(), dayNow()];
  const answer = await call();
  const [after, dayAfter] = [Date.now(), dayNow()];
  const opensRight = (nextAt: string, midnight: string) => {
    const opens = Date.parse(nextAt);
    return opens >= before + TWENTY_HOURS && (nextAt.endsWith(`T${midnight}.000Z`) || opens <= after + TWENTY_HOURS);
  };
  return { answer, days: [dayBefore, dayAfter], opensRight };
}

describe('/api/user/checkin', () => {
  it('a guest checks in once a day and sees the bonus in its coins', async () => {
    const token = await site.guest();
    const headers = { 'x-time-zone': 'Asia/Tokyo' };
    expect((await site.call('GET', '/api/user/checkin', { token, headers })).data).toMatchObject({ checkedInToday: false, streak: 0, nextReward: 5 });

    const { answer, days, opensRight } = await dayAround('Asia/Tokyo', () => site.call('POST', '/api/user/checkin', { token, headers, body: {} }));
    expect(answer).toMatchObject({ status: 200, code: 200, data: { streak: 1, coinsAwarded: 5, balance: 5 } });
    expect(days).toContain(answer.data.day);
    // The next check-in opens at midnight in Tokyo (UTC+9, 15:00 UTC), or 20 hours on when that is later.
    expect(opensRight(answer.data.nextAt, '15:00:00')).toBe(true);

    expect((await site.call('GET', '/api/user', { token })).data).toMatchObject({ coins: 5, bonusCoins: 5 });
    expect((await site.call('GET', '/api/user/checkin', { token, headers })).data).toEqual({ checkedInToday: true, streak: 1, nextReward: 10, nextAt: answer.data.nextAt });
    expect(await site.call('POST', '/api/user/checkin', { token, headers, body: {} })).toMatchObject({ status: 200, code: 409, message: 'You have already checked in today' });
  });

  it('two check-ins sent at once: one answers 200, the other 409, and the coins come once', async () => {
    const token = await site.guest();
    const answers = await Promise.all([1, 2].map(() => site.call('POST', '/api/user/checkin', { token, body: {} })));
    expect(answers.map((answer) => answer.code).sort()).toEqual([200, 409]);
    expect((await site.call('GET', '/api/user', { token })).data).toMatchObject({ coins: 5, bonusCoins: 5 });
  });

  it('three check-ins within a second at UTC-12, UTC and UTC+14 pay once: 20 hours must pass, whatever the zone', async () => {
    const token = await site.guest();
    const codes = [];
    for (const zone of ['Etc/GMT+12', 'UTC', 'Pacific/Kiritimati']) {
      codes.push((await site.call('POST', '/api/user/checkin', { token, headers: { 'x-time-zone': zone }, body: {} })).code);
    }
    expect(codes).toEqual([200, 409, 409]);
    expect((await site.call('GET', '/api/user', { token })).data).toMatchObject({ coins: 5, bonusCoins: 5 });
    expect((await site.call('GET', '/api/user/checkin', { token, headers: { 'x-time-zone': 'Pacific/Kiritimati' } })).data).toMatchObject({ checkedInToday: true });
  });

  it('counts days in UTC when the time zone is missing or unknown', async () => {
    for (const headers of [{}, { 'x-time-zone': 'Mars/Olympus_Mons' }] as Record<string, string>[]) {
      const token = await site.guest();
      const { answer, days, opensRight } = await dayAround('UTC', () => site.call('POST', '/api/user/checkin', { token, headers, body: {} }));
      expect(answer.code).toBe(200);
      expect(days).toContain(answer.data.day);
      expect(opensRight(answer.data.nextAt, '00:00:00')).toBe(true);
    }
  });

  it('a member keeps the streak its guest started', async () => {
    const token = await site.guest();
    await site.call('POST', '/api/user/checkin', { token, body: {} });
    const email = `checkin-${Date.now()}@example.com`;
    const registered = await site.call('POST', '/api/user/register', { token, body: { email, password: 'correct horse 1', confirmPassword: 'correct horse 1' } });
    const member = registered.headers.get('x-user-token');
    expect((await site.call('GET', '/api/user/checkin', { token: member })).data).toMatchObject({ checkedInToday: true, streak: 1 });
  });

  it('needs a user: a call without a token answers 401', async () => {
    expect(await site.call('POST', '/api/user/checkin', { body: {} })).toMatchObject({ code: 401 });
  });
});
