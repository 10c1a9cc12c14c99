import { infiniteQueryOptions, useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { catalogQueries } from '../../api/catalogQueries';
import { paymentQueries } from '../../api/paymentQueries';
import { userCalls } from '../../api/user';
import { userQueries } from '../../api/userQueries';
import { PAGE_SIZE, pagedQuery } from '../../lib/paging';

export const listsQueries = {
  history: () =>
    infiniteQueryOptions({
      queryKey: ['history', 'list'],
      queryFn: ({ pageParam }) => userCalls.history(pageParam, PAGE_SIZE),
      staleTime: 0,
      ...pagedQuery,
    }),
};

export function useFavorites() {
  return useInfiniteQuery(userQueries.favorites());
}

export function useRemoveFavorite() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (videoId: string) => userCalls.removeFavorite(videoId),
    onSuccess: (_, videoId) => {
      void queryClient.invalidateQueries({ queryKey: userQueries.favorites().queryKey });
      void queryClient.invalidateQueries({ queryKey: catalogQueries.video(videoId).queryKey });
    },
  });
}

export function useWatchHistoryList() {
  return useInfiniteQuery(listsQueries.history());
}

export function useUnlockedList() {
  return useInfiniteQuery(paymentQueries.unlocked());
}
