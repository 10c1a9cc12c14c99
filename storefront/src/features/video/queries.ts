import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { catalogCalls } from '../../api/catalog';
import { paymentCalls } from '../../api/payment';
import type { User, Video } from '../../api/types';
import { userCalls } from '../../api/user';
import { userKey } from '../account/queries';

export const videoKey = (id: string) => ['video', id] as const;

export function useVideo(id: string) {
  // Always refreshed on open: it carries this viewer's locks and resume point, which change as they watch.
  return useQuery({ queryKey: videoKey(id), queryFn: () => catalogCalls.video(id), staleTime: 0 });
}

/** An episode with its playback grant; a locked one rejects with code 402 and the shell opens the unlock sheet. */
export function useEpisode(episodeId: string | undefined) {
  return useQuery({
    queryKey: ['episode', episodeId],
    queryFn: () => catalogCalls.episode(episodeId as string),
    enabled: Boolean(episodeId),
    // A grant expires; fetch a fresh one whenever the episode is opened again.
    staleTime: 0,
    gcTime: 0,
  });
}

export function useToggleFavorite(video: Video | undefined) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (favorite: boolean) =>
      favorite ? userCalls.addFavorite(video!.id) : userCalls.removeFavorite(video!.id),
    onSuccess: (_, favorite) => {
      if (!video) return;
      queryClient.setQueryData<Video>(videoKey(video.id), (current) => (current ? { ...current, favorited: favorite } : current));
      void queryClient.invalidateQueries({ queryKey: ['favorites'] });
    },
  });
}

export function useRecordHistory() {
  return useMutation({
    mutationFn: ({ episodeId, positionSeconds, onLeave }: { episodeId: string; positionSeconds: number; onLeave?: boolean }) =>
      userCalls.recordHistory(episodeId, Math.floor(positionSeconds), onLeave),
  });
}

export function useUnlockEpisode() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (episodeId: string) => paymentCalls.unlockEpisode(episodeId),
    onSuccess: ({ balance }, episodeId) => {
      queryClient.setQueryData<User>(userKey, (user) => (user ? { ...user, coins: balance } : user));
      void queryClient.invalidateQueries({ queryKey: ['video'] });
      void queryClient.invalidateQueries({ queryKey: ['episode', episodeId] });
      void queryClient.invalidateQueries({ queryKey: ['unlocked'] });
    },
  });
}
