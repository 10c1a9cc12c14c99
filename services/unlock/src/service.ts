import { randomUUID } from 'node:crypto';
import { appendEvent, auditAdminCall, Conflict, pageOf, PaymentRequired, type AdminCall, type Database, type EventBus, type Executor, type Page, type RequestContext } from '@cliffhanger/platform';
import { ALREADY_CHECKED_IN, checkinDay, rewardOf, type Checkin, type CheckinStatus } from './checkin.ts';
import { createGuestMerges } from './guest-merge.ts';
import { createReversals } from './reversal.ts';
import { createStandingCache } from './standings.ts';
import type { EpisodeOffer, EpisodeTerms, SeriesTerms } from './ports.ts';
import { adminRepository as admin } from './admin-repository.ts';
import { unlockRepository as repo } from './repository.ts';
import { withLockedWallet, type LockedWallet } from './wallet.ts';

/** How long bonus coins stay spendable unless the service is told otherwise. */
export const BONUS_COIN_DAYS = 30;
const DAY_MS = 86_400_000;

/** A VIP subscription as a viewer sees it: `renewsAt` is when access ends unless it renews. */
export interface Vip {
  planId: string;
  renewsAt: string;
  cancelAtPeriodEnd: boolean;
}

/** A user's coins and VIP: `coins` is the spendable total (paid + bonus), `bonusCoins` the part that may expire. */
export interface Standing {
  coins: number;
  bonusCoins: number;
  vip: Vip | null;
}

/** VIP as the payment service reports it. */
export interface VipState {
  planId: string;
  activeUntil: Date;
  cancelAtPeriodEnd: boolean;
}

export interface OrderCredit {
  orderId: string;
  userId: string;
  /** Paid coins: never expire. */
  coins: number;
  /** Bonus coins that come with the order: expire after the bonus period. */
  bonusCoins: number;
}

export interface BonusGrant {
  userId: string;
  coins: number;
  /** Makes the grant happen once, e.g. `checkin:<user>:<day>`. */
  reference: string;
  kind: 'bonus' | 'checkin';
}

/** What a credit did: `credited` is false when its reference had been credited before. */
export interface Credit {
  credited: boolean;
  balance: number;
}

export type { OrderReversal, Restoral, Reversal } from './reversal.ts';

export interface UnlockedVideo {
  videoId: string;
  episodes: number[];
}

export interface UnlockServiceDeps {
  database: Database;
  bus: EventBus;
  /** The clock: tests move it to see bonus coins and VIP lapse. */
  now?: () => Date;
  bonusCoinDays?: number;
}

/** One credit to a wallet: paid and bonus coins under a reference that makes it happen once. */
/** A wallet as an operator sees it (`GET /api/admin/users/:id`). */
export interface AdminWallet {
  balance: number;
  paidCoins: number;
  bonusCoins: number;
  bonusLots: { coins: number; remaining: number; expiresAt: string; grantedBy: string }[];
  ledger: Page<{
    kind: string;
    reference: string;
    paidDelta: number;
    bonusDelta: number;
    paidBalance: number;
    bonusBalance: number;
    createdAt: string;
    reason: string | null;
    actor: string | null;
  }>;
  unlocks: { videoId: string; episodeId: string; number: number; priceCoins: number; unlockedAt: string }[];
}

/** An operator's grant of bonus coins to a user, with why (docs/api.md "Admin"). */
export interface CoinGrant {
  userId: string;
  coins: number;
  reason: string;
}

interface CreditEntry {
  userId: string;
  kind: 'purchase' | 'grant' | BonusGrant['kind'];
  reference: string;
  coins: number;
  bonusCoins: number;
  orderId?: string;
}

const isFree = (terms: EpisodeTerms) => terms.number <= terms.freeEpisodes;

/** Only an episode that plays is sold: one planned, still being transcoded, or whose transcode failed is refused before any coin moves. */
function refuseUnplayable(terms: EpisodeOffer): void {
  if (terms.status === 'ready') return;
  throw new Conflict(
    terms.status === 'failed' ? 'This episode is not available, so it cannot be unlocked' : 'This episode is still being prepared: it can be unlocked once it plays',
  );
}

const isUniqueViolation = (error: unknown): boolean => {
  const cause = (error as { cause?: { code?: string } })?.cause ?? error;
  return (cause as { code?: string })?.code === '23505';
};

export function createUnlockService(deps: UnlockServiceDeps) {
  const { bus } = deps;
  const now = deps.now ?? (() => new Date());
  const standings = createStandingCache<Standing>(now);
  // Every transaction of this service counts as a write of the standings once it ends.
  const database = standings.counting(deps.database);
  const bonusLifetimeMs = (deps.bonusCoinDays ?? BONUS_COIN_DAYS) * DAY_MS;
  const merges = createGuestMerges({ database, now });
  const reversals = createReversals({ database, now, bonusLifetimeMs });

  async function balanceOf(userId: string, at: Date): Promise<number> {
    const { paidCoins, bonusCoins } = await repo.standingOf(database.db, userId, at);
    return paidCoins + bonusCoins;
  }

  /** Coins and VIP, asked on every page: kept a few seconds (standings.ts), never past a change of this process or a lapse. */
  function standingOf(userId: string): Promise<Standing> {
    return standings.get(userId, async () => {
      const at = now();
      const { paidCoins, bonusCoins, nextLapseAt, vip } = await repo.standingOf(database.db, userId, at);
      const vipLive = vip && vip.activeUntil > at ? vip : null;
      return {
        value: {
          coins: paidCoins + bonusCoins,
          bonusCoins,
          vip: vipLive && { planId: vipLive.planId, renewsAt: vipLive.activeUntil.toISOString(), cancelAtPeriodEnd: vipLive.cancelAtPeriodEnd },
        },
        trueUntil: Math.min(nextLapseAt ?? Infinity, vipLive?.activeUntil.getTime() ?? Infinity),
      };
    });
  }

  // From the kept standing: a series page asks it for every viewer, and it is read again at the VIP's end.
  const vipActive = async (userId: string): Promise<boolean> => (await standingOf(userId)).vip !== null;

  /** Adds coins to a locked wallet under `reference`, and the `coins.credited` event that says so. */
  async function creditLocked(tx: Executor, context: RequestContext, wallet: LockedWallet, at: Date, entry: CreditEntry): Promise<void> {
    const { userId, kind, reference, coins, bonusCoins, orderId } = entry;
    await wallet.credit(kind, reference, coins, bonusCoins, new Date(at.getTime() + bonusLifetimeMs));
    const credited = { reference, ...(orderId ? { orderId } : {}), kind, coins, bonusCoins, balance: wallet.balance };
    await appendEvent(tx, context, 'coins.credited', credited, userId);
  }

  /** Credits coins under a reference once; a repeat, however concurrent, answers the balance. */
  async function credit(context: RequestContext, entry: CreditEntry): Promise<Credit> {
    const { userId, reference } = entry;
    const at = now();
    // Credited before to a guest: the member it logged in as may be asking (its orders follow it).
    const credited = await repo.entryByReference(database.db, reference);
    if (credited && credited.userId !== userId) {
      await merges.creditOfMergedGuest(context, credited, userId);
      bus.nudge();
      return { credited: false, balance: await balanceOf(userId, at) };
    }
    try {
      const result = await database.transaction((tx) =>
        withLockedWallet(tx, userId, at, async (wallet) => {
          const earlier = await repo.entryByReference(tx, reference);
          if (earlier && earlier.userId !== userId) throw new Conflict(`${reference} was credited to another user`);
          if (earlier) return { credited: false, balance: wallet.balance };
          await creditLocked(tx, context, wallet, at, entry);
          return { credited: true, balance: wallet.balance };
        }),
      );
      if (result.credited) bus.nudge();
      return result;
    } catch (error) {
      // Only one reference credited to two users at once gets here: the same user's repeats wait on the wallet lock.
      if (isUniqueViolation(error)) throw new Conflict(`${reference} was credited to another user`);
      throw error;
    }
  }

  return {
    standingOf,

    /** A change made outside this service's transactions (the guest-merge consumer's, in the bus's) has committed. */
    standingsChanged: standings.changed,

    /** Free episodes for everyone; the rest for whoever unlocked them, and for VIP while it lasts. */
    async mayWatch(userId: string | null, terms: EpisodeTerms): Promise<boolean> {
      if (isFree(terms)) return true;
      if (!userId) return false;
      const [unlocked, vip] = await Promise.all([repo.isUnlocked(database.db, userId, terms.episodeId), vipActive(userId)]);
      return unlocked || vip;
    },

    /**
     * The same question for the episodes of one series at once (a series page's locked flags): one
     * look at the viewer's VIP and unlocks, whatever the number of episodes.
     */
    async watchableNumbers(userId: string | null, series: SeriesTerms): Promise<number[]> {
      const free = series.numbers.filter((number) => number <= series.freeEpisodes);
      if (!userId || free.length === series.numbers.length) return free;
      const [unlocked, vip] = await Promise.all([repo.unlockedNumbers(database.db, userId, series.videoId), vipActive(userId)]);
      if (vip) return series.numbers;
      const owned = new Set(unlocked);
      return series.numbers.filter((number) => number <= series.freeEpisodes || owned.has(number));
    },

    /**
     * Spends the episode's price once, bonus coins first. Unlocking again charges nothing; free
     * episodes and VIP viewers need no coins and leave nothing to unlock; an episode that does not
     * play yet is refused (409).
     */
    async unlockEpisode(context: RequestContext, userId: string, terms: EpisodeOffer): Promise<{ episodeId: string; balance: number }> {
      refuseUnplayable(terms);
      const at = now();
      const { episodeId } = terms;
      if (isFree(terms)) return { episodeId, balance: await balanceOf(userId, at) };
      const unlocked = { userId, episodeId, videoId: terms.videoId, episodeNumber: terms.number, priceCoins: terms.priceCoins, unlockedAt: at };
      const { charged, balance } = await database.transaction((tx) =>
        withLockedWallet<{ charged: boolean; balance: number }, Awaited<ReturnType<typeof repo.lockWalletClaimingUnlock>>>(
          tx,
          userId,
          at,
          async (wallet, { claimed }) => {
            // The unlock row is claimed with the wallet lock: a repeat (or a VIP) claims nothing and
            // is charged nothing; a shortfall rolls the claim back.
            if (!claimed) return { charged: false, balance: wallet.balance };
            if (wallet.balance < terms.priceCoins) throw new PaymentRequired('Not enough coins', { priceCoins: terms.priceCoins, balance: wallet.balance });
            const reference = await repo.unlockReference(tx, userId, episodeId);
            await wallet.spend('unlock', reference, terms.priceCoins);
            await appendEvent(tx, context, 'episode.unlocked', { episodeId, videoId: terms.videoId, priceCoins: terms.priceCoins, balance: wallet.balance, reference }, userId);
            return { charged: true, balance: wallet.balance };
          },
          (lockTx) => repo.lockWalletClaimingUnlock(lockTx, unlocked),
        ),
      );
      if (charged) bus.nudge();
      return { episodeId, balance };
    },

    /** The numbers of a series' episodes the user unlocked, for the series page's locked flags. */
    unlockedNumbers: (userId: string, videoId: string): Promise<number[]> => repo.unlockedNumbers(database.db, userId, videoId),

    async listUnlocked(userId: string, page: number, size: number): Promise<Page<UnlockedVideo>> {
      const rows = await repo.unlockedVideosPage(database.db, userId, (page - 1) * size, size + 1);
      return { items: rows.slice(0, size), page, size, hasMore: rows.length > size };
    },

    /** A paid order's coins and its bonus lot, once per order id. */
    creditOrder: (context: RequestContext, order: OrderCredit): Promise<Credit> =>
      credit(context, { userId: order.userId, kind: 'purchase', reference: `order:${order.orderId}`, coins: order.coins, bonusCoins: order.bonusCoins, orderId: order.orderId }),

    /** Bonus coins for a check-in or a promotion, once per reference. */
    grantBonus: (context: RequestContext, grant: BonusGrant): Promise<Credit> =>
      credit(context, { userId: grant.userId, kind: grant.kind, reference: grant.reference, coins: 0, bonusCoins: grant.coins }),

    /**
     * An operator's grant: bonus coins in a lot of their own (they lapse like any bonus), a `grant`
     * ledger entry with the reason beside it (`unlock.grants`), and the audit, in one transaction
     * under the wallet lock. Each call is a grant of its own.
     */
    async grantCoins(grant: CoinGrant, by: AdminCall): Promise<{ reference: string; coins: number; balance: number }> {
      const at = now();
      const reference = `grant:${randomUUID()}`;
      const balance = await database.transaction((tx) =>
        withLockedWallet(tx, grant.userId, at, async (wallet) => {
          const before = wallet.balance;
          await creditLocked(tx, by.context, wallet, at, { userId: grant.userId, kind: 'grant', reference, coins: 0, bonusCoins: grant.coins });
          await admin.insertGrant(tx, { reference, userId: grant.userId, coins: grant.coins, reason: grant.reason, actor: by.caller.actor, grantedAt: at });
          await auditAdminCall(tx, by, {
            action: 'user.grant',
            target: `user:${grant.userId}`,
            before: { coins: before },
            after: { coins: wallet.balance, granted: grant.coins, reason: grant.reason, reference },
          });
          return wallet.balance;
        }),
      );
      bus.nudge();
      return { reference, coins: grant.coins, balance };
    },

    /** A wallet as an operator sees it: balances, live bonus lots, a page of the ledger (grants with their reason), the latest unlocks. */
    async walletOf(userId: string, page: number, size: number): Promise<AdminWallet> {
      const at = now();
      const [{ paidCoins, bonusCoins }, lots, entries, unlocked] = await Promise.all([
        repo.standingOf(database.db, userId, at),
        admin.liveLots(database.db, userId, at),
        admin.ledgerPage(database.db, userId, (page - 1) * size, size + 1),
        admin.unlocksOf(database.db, userId, 100),
      ]);
      const iso = (date: Date) => date.toISOString();
      return {
        balance: paidCoins + bonusCoins,
        paidCoins,
        bonusCoins,
        bonusLots: lots.map((lot) => ({ ...lot, expiresAt: iso(lot.expiresAt) })),
        ledger: pageOf(
          entries.map((entry) => ({ ...entry, createdAt: iso(entry.createdAt) })),
          page,
          size,
        ),
        unlocks: unlocked.map((row) => ({ ...row, unlockedAt: iso(row.unlockedAt) })),
      };
    },

    /** Where the viewer stands with the daily check-in, in their time zone. */
    async checkinStatus(userId: string, zone: string): Promise<CheckinStatus> {
      return checkinDay(zone, now(), await repo.lastCheckin(database.db, userId)).status;
    },

    /**
     * Today's check-in, once per calendar day in the viewer's time zone and 20 hours after the last:
     * its row and the bonus coins it pays (ledger reference `checkin:<user>:<day>`) commit together
     * under the wallet lock, so calls that race wait on the lock and then find the day claimed (409).
     * The database stands behind the lock: the primary key (user, day), the unique reference, and a
     * trigger that refuses a check-in less than 20 hours after the user's last (migrations/0004_rules.sql).
     */
    async checkIn(context: RequestContext, userId: string, zone: string): Promise<Checkin> {
      const at = now();
      try {
        const checkin = await database.transaction((tx) =>
          withLockedWallet(tx, userId, at, async (wallet) => {
            const { today: day, refusal, streak } = checkinDay(zone, at, await repo.lastCheckin(tx, userId));
            if (refusal) throw new Conflict(refusal);
            const coinsAwarded = rewardOf(streak);
            await repo.insertCheckin(tx, { userId, day, streak, coins: coinsAwarded, timeZone: zone, checkedInAt: at });
            await creditLocked(tx, context, wallet, at, { userId, kind: 'checkin', reference: `checkin:${userId}:${day}`, coins: 0, bonusCoins: coinsAwarded });
            await appendEvent(tx, context, 'checkin.claimed', { day, streak, coinsAwarded }, userId);
            const { nextAt } = checkinDay(zone, at, { day, streak, checkedInAt: at }).status;
            return { day, streak, coinsAwarded, balance: wallet.balance, nextAt };
          }),
        );
        bus.nudge();
        return checkin;
      } catch (error) {
        if (isUniqueViolation(error)) throw new Conflict(ALREADY_CHECKED_IN);
        throw error;
      }
    },

    /** A refund's or dispute's share of an order's coins back, revoking latest unlocks where they were spent (reversal.ts). */
    reverseOrder: reversals.reverseOrder,
    /** A dispute won: its reversal given back (reversal.ts). */
    restoreReversal: reversals.restoreReversal,

    /** `user.logged_in` with a guest: its wallet into the member's, in the consumer's transaction (guest-merge.ts). */
    mergeGuestWallet: merges.mergeGuestWallet,

    /** Stores VIP as the payment service last reported it; null ends it. */
    async applyVip(userId: string, state: VipState | null): Promise<void> {
      try {
        if (state) await repo.setVip(database.db, { userId, ...state }, now());
        else await repo.endVip(database.db, userId);
      } finally {
        standings.changed();
      }
    },

    /** Writes expiry entries for what is left of every lot lapsed by `at`; answers the coins expired. */
    async expireBonusCoins(at: Date = now()): Promise<number> {
      let expired = 0;
      for (;;) {
        const users = await repo.usersWithLapsedLots(database.db, at, 100);
        if (users.length === 0) return expired;
        for (const userId of users) expired += await database.transaction((tx) => withLockedWallet(tx, userId, at, async (wallet) => wallet.expiredCoins));
      }
    },
  };
}

export type UnlockService = ReturnType<typeof createUnlockService>;
