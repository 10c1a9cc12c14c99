import { ApiError } from '../../api/client';
import { InfiniteList } from '../../components/InfiniteList';
import { VideoTile } from '../../components/VideoTile';
import { useT } from '../../i18n/I18nProvider';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { useUnlockedList } from './queries';

export function UnlockedPage() {
  const t = useT();
  const unlocked = useUnlockedList();
  useDocumentTitle(t('lists.unlocked'));
  const unavailable = unlocked.error instanceof ApiError && unlocked.error.code === 404;
  return (
    <div className="page">
      <h1 className="page__title">{t('lists.unlocked')}</h1>
      {unavailable ? (
        <p className="notice">{t('lists.unavailable')}</p>
      ) : (
        <InfiniteList
          query={unlocked}
          label={t('lists.unlocked')}
          itemKey={(row) => row.video.id}
          empty={<p>{t('lists.unlockedEmpty')}</p>}
          renderItem={(row) => (
            <VideoTile video={row.video} caption={t('lists.unlockedEpisodes', { list: row.episodes.join(', ') })} />
          )}
        />
      )}
    </div>
  );
}
