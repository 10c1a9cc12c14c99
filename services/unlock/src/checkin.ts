import { dayBefore, dayIn, startOfDayAfter } from './calendar.ts';

/**
 * Bonus coins of the 1st to 7th day of a streak. From the 7th day on every day pays the 7th's, for
 * as long as the streak lasts; a missed day starts again at the 1st.
 */
export const CHECKIN_REWARDS = [5, 10, 15, 20, 25, 30, 50] as const;

export const rewardOf = (streak: number): number => CHECKIN_REWARDS[Math.min(streak, CHECKIN_REWARDS.length) - 1]!;

/** The least real time between two check-ins, whatever zones their days were counted in; the database holds it too (migrations/0004_rules.sql). */
const CHECKIN_GAP_MS = 20 * 3_600_000;

export const ALREADY_CHECKED_IN = 'You have already checked in today';
const TOO_SOON = 'You have checked in already: the next check-in opens 20 hours after the last one';

/** `GET /api/user/checkin`: `streak` is the one still alive (0 once a day was missed); `nextAt` when the next check-in opens: now, when today's is still open. */
export interface CheckinStatus {
  checkedInToday: boolean;
  streak: number;
  nextReward: number;
  nextAt: string;
}

/** `POST /api/user/checkin`: the day claimed, the streak it makes, its coins and the balance afterwards. */
export interface Checkin {
  day: string;
  streak: number;
  coinsAwarded: number;
  balance: number;
  nextAt: string;
}

interface LastCheckin {
  day: string;
  streak: number;
  checkedInAt: Date;
}

/**
 * Where a viewer stands at `at` in `zone`, given their last check-in. Days only move forward: a
 * viewer who checked in for a later day in a zone further east has claimed today as well, so
 * changing time zones never claims a day twice. And 20 hours of real time must pass between two
 * check-ins: a zone further east starts a new day at once, so naming one would pay again at once.
 */
export function checkinDay(zone: string, at: Date, last: LastCheckin | null) {
  const today = dayIn(zone, at);
  const claimed = last !== null && last.day >= today;
  const gapEndsAt = last ? last.checkedInAt.getTime() + CHECKIN_GAP_MS : at.getTime();
  const tooSoon = gapEndsAt > at.getTime();
  const dayOpensAt = claimed ? startOfDayAfter(zone, last.day, at).getTime() : at.getTime();
  // A streak lives while its last day is today (or later) or yesterday.
  const alive = last !== null && last.day >= dayBefore(today) ? last.streak : 0;
  return {
    today,
    /** Why a check-in now is refused (409), or null while one is open. */
    refusal: claimed ? ALREADY_CHECKED_IN : tooSoon ? TOO_SOON : null,
    /** The streak a check-in today makes. */
    streak: alive + 1,
    status: {
      checkedInToday: claimed || tooSoon,
      streak: alive,
      nextReward: rewardOf(alive + 1),
      nextAt: new Date(Math.max(dayOpensAt, gapEndsAt)).toISOString(),
    } satisfies CheckinStatus,
  };
}
