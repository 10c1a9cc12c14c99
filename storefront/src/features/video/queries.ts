import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { catalogCalls } from '../../api/catalog';
import { catalogQueries } from '../../api/catalogQueries';
import { paymentCalls } from '../../api/payment';
import { paymentQueries } from '../../api/paymentQueries';
import type { Video } from '../../api/types';
import { userCalls } from '../../api/user';
import { userQueries } from '../../api/userQueries';
import { trackUnlock } from '../../lib/conversions';
import { keepVisitAlive } from '../../lib/visit';

export const videoQueries = {
  /** An episode with its playback grant; a locked one rejects with code 402 and the shell opens the unlock sheet. */
  episode: (episodeId: string | undefined) =>
    queryOptions({
      queryKey: ['episode', episodeId],
      queryFn: () => catalogCalls.episode(episodeId as string),
      // A grant expires; fetch a fresh one whenever the episode is opened again.
      staleTime: 0,
      gcTime: 0,
    }),
};

export function useVideo(id: string) {
  return useQuery(catalogQueries.video(id));
}

export function useEpisode(episodeId: string | undefined) {
  return useQuery({ ...videoQueries.episode(episodeId), enabled: Boolean(episodeId) });
}

export function useToggleFavorite(video: Video | undefined) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (favorite: boolean) =>
      favorite ? userCalls.addFavorite(video!.id) : userCalls.removeFavorite(video!.id),
    onSuccess: (_, favorite) => {
      if (!video) return;
      queryClient.setQueryData(catalogQueries.video(video.id).queryKey, (current) =>
        current ? { ...current, favorited: favorite } : current,
      );
      void queryClient.invalidateQueries({ queryKey: userQueries.favorites().queryKey });
    },
  });
}

export function useRecordHistory() {
  return useMutation({
    mutationFn: ({ episodeId, positionSeconds, onLeave }: { episodeId: string; positionSeconds: number; onLeave?: boolean }) => {
      // A save of the watch position is the viewer still watching: it keeps the visit going.
      keepVisitAlive();
      return userCalls.recordHistory(episodeId, Math.floor(positionSeconds), onLeave);
    },
  });
}

/** An episode to unlock, with what it costs (for the conversion report: the answer says only the new balance). */
export interface UnlockRequest {
  episodeId: string;
  videoId?: string;
  priceCoins: number;
}

export function useUnlockEpisode() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ episodeId }: UnlockRequest) => paymentCalls.unlockEpisode(episodeId),
    onSuccess: ({ balance }, { episodeId, videoId, priceCoins }) => {
      trackUnlock({ episodeId, videoId, coins: priceCoins });
      // The new total at once; bonus coins are spent first, so the exact split comes with the refetch.
      queryClient.setQueryData(userQueries.current().queryKey, (user) =>
        user ? { ...user, coins: balance, bonusCoins: Math.min(user.bonusCoins, balance) } : user,
      );
      void queryClient.invalidateQueries({ queryKey: userQueries.current().queryKey });
      void queryClient.invalidateQueries({ queryKey: catalogQueries.videos() });
      void queryClient.invalidateQueries({ queryKey: videoQueries.episode(episodeId).queryKey });
      void queryClient.invalidateQueries({ queryKey: paymentQueries.unlocked().queryKey });
    },
  });
}
