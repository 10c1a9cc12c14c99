import type { EpisodeSummary } from '../../api/types';
import { LockIcon } from '../../components/PageIcons';
import { useT } from '../../i18n/I18nProvider';

interface EpisodeGridProps {
  episodes: EpisodeSummary[];
  currentId: string | undefined;
  onSelect: (episode: EpisodeSummary) => void;
}

/** Every episode as a numbered button; locked ones carry a lock, unready ones are disabled. */
export function EpisodeGrid({ episodes, currentId, onSelect }: EpisodeGridProps) {
  const t = useT();
  return (
    <ol className="episode-grid" aria-label={t('video.episodes')}>
      {episodes.map((episode) => {
        const state = episode.locked ? t('video.locked') : !episode.ready ? t('video.comingSoon') : '';
        return (
          <li key={episode.id}>
            <button
              type="button"
              className={`episode ${episode.locked ? 'episode--locked' : ''}`}
              aria-current={episode.id === currentId ? 'true' : undefined}
              aria-label={[t('video.episodeN', { n: episode.number }), episode.title, state].filter(Boolean).join(', ')}
              disabled={!episode.ready && !episode.locked}
              onClick={() => onSelect(episode)}
              data-testid={`episode-${episode.number}`}
            >
              {episode.number}
              {episode.locked && <LockIcon size={12} className="episode__lock" />}
            </button>
          </li>
        );
      })}
    </ol>
  );
}
