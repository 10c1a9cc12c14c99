import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { paymentCalls } from '../../api/payment';
import { userCalls } from '../../api/user';
import { PAGE_SIZE, pagedQuery } from '../../lib/paging';

export function useFavorites() {
  return useInfiniteQuery({
    queryKey: ['favorites'],
    queryFn: ({ pageParam }) => userCalls.favorites(pageParam, PAGE_SIZE),
    ...pagedQuery,
  });
}

export function useRemoveFavorite() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (videoId: string) => userCalls.removeFavorite(videoId),
    onSuccess: (_, videoId) => {
      void queryClient.invalidateQueries({ queryKey: ['favorites'] });
      void queryClient.invalidateQueries({ queryKey: ['video', videoId] });
    },
  });
}

export function useWatchHistoryList() {
  return useInfiniteQuery({
    queryKey: ['history', 'list'],
    queryFn: ({ pageParam }) => userCalls.history(pageParam, PAGE_SIZE),
    staleTime: 0,
    ...pagedQuery,
  });
}

export function useUnlockedList() {
  return useInfiniteQuery({
    queryKey: ['unlocked'],
    queryFn: ({ pageParam }) => paymentCalls.unlocked(pageParam, PAGE_SIZE),
    ...pagedQuery,
  });
}
