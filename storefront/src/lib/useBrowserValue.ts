import { useMemo, useSyncExternalStore } from 'react';

const unchanging = () => () => undefined;

/**
 * A value only the browser knows (what it stored, the address the visit landed on), read through
 * useSyncExternalStore: while React hydrates a server-rendered page, `serverValue` (what the server
 * rendered with, for a new visitor), so the first client render equals the server's; the browser's
 * own right after, and at once in any render that is not hydrating. `read` runs once per `key` (a
 * page visit), not at every render: a value stored while the page shows (a guest made by its first
 * call) changes nothing until the next visit.
 */
export function useBrowserValue<T>(key: unknown, read: () => T, serverValue: T): T {
  const snapshot = useMemo(() => {
    let value: { read: T } | undefined;
    return () => (value ??= { read: read() }).read;
    // Once per key, with that visit's `read`.
  }, [key]);
  return useSyncExternalStore(unchanging, snapshot, () => serverValue);
}
