/**
 * The per-account login throttle (docs/api.md "Accounts"), as a pure rule over one run of failures.
 *
 * A run counts the failed password logins of one email from browsers that never logged in to it, and
 * ends after THROTTLE_QUIET_MINUTES without a failure (a block counts as not quiet). From its
 * THROTTLE_AFTER_FAILURES-th failure on, such logins are refused for a growing delay (1, 2, 4 … up to
 * THROTTLE_MAX_DELAY_MINUTES), without their password even being checked. Each attempt is counted
 * before its password is checked, so guesses sent all at once are counted all the same.
 */
export const THROTTLE_AFTER_FAILURES = 10;
export const THROTTLE_QUIET_MINUTES = 15;
export const THROTTLE_MAX_DELAY_MINUTES = 60;

const MINUTE = 60_000;

export interface LoginRun {
  failures: number;
  lastFailureAt: Date;
  blockedUntil: Date | null;
  noticeSentAt: Date | null;
}

/** Seconds until a login may be tried again, or 0 when it may be now. */
export function secondsBlocked(run: LoginRun, now: Date): number {
  return run.blockedUntil && run.blockedUntil > now ? Math.ceil((run.blockedUntil.getTime() - now.getTime()) / 1000) : 0;
}

/** The delay the `failures`-th failure of a run imposes. */
export function delayMinutes(failures: number): number {
  if (failures < THROTTLE_AFTER_FAILURES) return 0;
  return Math.min(2 ** (failures - THROTTLE_AFTER_FAILURES), THROTTLE_MAX_DELAY_MINUTES);
}

/**
 * The run after one more failure at `now`, and whether this failure is the one to tell the owner of
 * (the first to slow the account, once per run).
 */
export function afterFailure(run: LoginRun, now: Date): { run: LoginRun; noticeDue: boolean } {
  const quietSince = Math.max(run.lastFailureAt.getTime(), run.blockedUntil?.getTime() ?? 0);
  const ended = run.failures > 0 && now.getTime() - quietSince >= THROTTLE_QUIET_MINUTES * MINUTE;
  const failures = ended ? 1 : run.failures + 1;
  const delay = delayMinutes(failures);
  const noticeSentAt = ended ? null : run.noticeSentAt;
  const noticeDue = delay > 0 && !noticeSentAt;
  return {
    run: {
      failures,
      lastFailureAt: now,
      blockedUntil: delay > 0 ? new Date(now.getTime() + delay * MINUTE) : null,
      noticeSentAt: noticeDue ? now : noticeSentAt,
    },
    noticeDue,
  };
}
