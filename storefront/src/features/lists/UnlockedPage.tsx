import { InfiniteList } from '../../components/InfiniteList';
import { VideoTile } from '../../components/VideoTile';
import { useT } from '../../i18n/I18nProvider';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { useUnlockedList } from './queries';

/** /unlocked: each series with episodes this viewer unlocked with coins, and which ones. */
export function UnlockedPage() {
  const t = useT();
  const unlocked = useUnlockedList();
  useDocumentTitle(t('lists.unlocked'));
  return (
    <div className="page">
      <h1 className="page__title">{t('lists.unlocked')}</h1>
      <InfiniteList
        query={unlocked}
        label={t('lists.unlocked')}
        itemKey={(row) => row.video.id}
        empty={<p>{t('lists.unlockedEmpty')}</p>}
        renderItem={(row) => (
          <VideoTile
            video={row.video}
            caption={t(row.episodes.length === 1 ? 'lists.unlockedEpisode' : 'lists.unlockedEpisodes', {
              list: [...row.episodes].sort((a, b) => a - b).join(', '),
            })}
          />
        )}
      />
    </div>
  );
}
