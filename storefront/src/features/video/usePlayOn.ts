import type { EpisodeSummary, Video } from '../../api/types';
import { useCurrentUser } from '../../api/userQueries';
import { useT } from '../../i18n/I18nProvider';
import { showToast } from '../../lib/toast';
import { useUnlockEpisode } from './queries';

/**
 * Playing on (next, swipe up, the end of an episode) into a locked episode. With auto-unlock on and
 * coins enough, the episode is unlocked before it is opened, so its call never answers 402 and the
 * unlock sheet never shows. Otherwise, or when the unlock is refused, the episode opens as it is and
 * its 402 opens the sheet (AppShell). Choosing an episode in the grid is not playing on: it asks.
 */
export function usePlayOn(video: Video | undefined, open: (episode: EpisodeSummary) => void) {
  const t = useT();
  const user = useCurrentUser().data;
  const unlock = useUnlockEpisode();

  const playOn = (episode: EpisodeSummary | undefined) => {
    if (!episode || unlock.isPending) return;
    const price = video?.priceCoins ?? Number.POSITIVE_INFINITY;
    const unlockFirst = episode.locked && user?.settings?.autoUnlock === true && user.coins >= price;
    if (!unlockFirst) {
      open(episode);
      return;
    }
    unlock.mutate({ episodeId: episode.id, videoId: video?.id, priceCoins: price }, {
      onSuccess: () => showToast(t('unlock.autoDone', { n: episode.number, count: price }), 'success'),
      onSettled: () => open(episode),
    });
  };

  const unlocking = unlock.isPending ? video?.episodes.find((episode) => episode.id === unlock.variables?.episodeId) : undefined;
  return { playOn, unlocking };
}
