import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, queryRows, stopPlatform, systemContext, type Platform } from '@cliffhanger/platform';
import { openTestPlatform } from '@cliffhanger/platform/testing';
import { unlockModule } from '../src/index.ts';
import { createUnlockService } from '../src/service.ts';
import { catalogOf, DAY_MS } from './fixture.ts';

let platform: Platform;
beforeAll(async () => {
  platform = await openTestPlatform();
  await migrate(platform.database, 'unlock', unlockModule.migrations!);
});
afterAll(() => stopPlatform(platform));

describe('the unlock module', () => {
  it('sweeps lapsed bonus coins into the ledger as its background work starts', async () => {
    const lastMonth = createUnlockService({ ...platform, now: () => new Date(Date.now() - 31 * DAY_MS) });
    await lastMonth.grantBonus(systemContext(), { userId: 'swept', coins: 12, reference: 'promo:swept', kind: 'bonus' });

    const instance = await unlockModule.init({ platform, client: <C>() => catalogOf([]) as C, runsHere: () => true });
    await instance.background!().stop();

    const entries = await queryRows<{ kind: string; bonus_delta: number }>(
      platform.database.db,
      sql`select kind, bonus_delta from unlock.ledger where user_id = 'swept' order by id`,
    );
    expect(entries).toEqual([
      { kind: 'bonus', bonus_delta: 12 },
      { kind: 'expiry', bonus_delta: -12 },
    ]);
    expect(await instance.client!.standingOf('swept')).toEqual({ coins: 0, bonusCoins: 0, vip: null });
  });
});
