import { infiniteQueryOptions, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { keepUserId } from '../lib/attribution';
import { PAGE_SIZE, pagedQuery } from '../lib/paging';
import { ApiError } from './client';
import type { User } from './types';
import { userCalls } from './user';

/** The user service's queries that more than one feature reads or refreshes. */
export const userQueries = {
  /**
   * Who this browser is. Every other query belongs to this identity and is dropped when it changes,
   * so no other key may start like this one.
   */
  current: () => queryOptions({ queryKey: ['user'], queryFn: userCalls.current, staleTime: 60_000 }),
  favorites: () =>
    infiniteQueryOptions({
      queryKey: ['favorites'],
      queryFn: ({ pageParam }) => userCalls.favorites(pageParam, PAGE_SIZE),
      ...pagedQuery,
    }),
  checkin: () => queryOptions({ queryKey: ['checkin'], queryFn: userCalls.checkinStatus, staleTime: 60_000 }),
};

/** The current user; the first call creates a guest, and the client keeps the x-user-token it answers. */
export function useCurrentUser() {
  const query = useQuery(userQueries.current());
  const id = query.data?.id;
  useEffect(() => {
    if (id) keepUserId(id);
  }, [id]);
  return query;
}

/**
 * The auto-unlock switch, shown where a locked episode is met and on /my. The switch moves at once
 * and moves back if the call fails, so a tap always reads as the setting really is.
 */
export function useAutoUnlockSetting() {
  const queryClient = useQueryClient();
  const key = userQueries.current().queryKey;
  const mutation = useMutation({
    mutationFn: (autoUnlock: boolean) => userCalls.updateSettings({ autoUnlock }),
    onMutate: async (autoUnlock) => {
      await queryClient.cancelQueries({ queryKey: key });
      const before = queryClient.getQueryData(key);
      queryClient.setQueryData(key, (user) => (user ? withAutoUnlock(user, autoUnlock) : user));
      return { before };
    },
    onError: (_error, _autoUnlock, context) => queryClient.setQueryData(key, context?.before),
    onSuccess: (user) => queryClient.setQueryData(key, user),
  });
  const enabled = useCurrentUser().data?.settings?.autoUnlock ?? false;
  return { enabled, change: (autoUnlock: boolean) => mutation.mutate(autoUnlock), isPending: mutation.isPending };
}

const withAutoUnlock = (user: User, autoUnlock: boolean): User => ({ ...user, settings: { ...user.settings, autoUnlock } });

/**
 * Today's check-in. The header's coins show the bonus at once (the answer's balance), then both the
 * user and the check-in are read again; a 409 (checked in from another tab) refreshes the card too.
 */
export function useCheckIn() {
  const queryClient = useQueryClient();
  const refresh = () =>
    Promise.all([userQueries.current(), userQueries.checkin()].map(({ queryKey }) => queryClient.invalidateQueries({ queryKey })));
  return useMutation({
    mutationFn: userCalls.checkIn,
    onSuccess: (checkin) => {
      queryClient.setQueryData(userQueries.current().queryKey, (user) =>
        user ? { ...user, coins: checkin.balance, bonusCoins: user.bonusCoins + checkin.coinsAwarded } : user,
      );
      return refresh();
    },
    onError: (error) => (error instanceof ApiError && error.code === 409 ? refresh() : undefined),
  });
}
