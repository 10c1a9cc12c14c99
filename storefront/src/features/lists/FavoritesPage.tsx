import { CloseIcon } from '../../components/PageIcons';
import { InfiniteList } from '../../components/InfiniteList';
import { VideoTile } from '../../components/VideoTile';
import { useT } from '../../i18n/I18nProvider';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { useFavorites, useRemoveFavorite } from './queries';

export function FavoritesPage() {
  const t = useT();
  const favorites = useFavorites();
  const remove = useRemoveFavorite();
  useDocumentTitle(t('lists.favorites'));
  return (
    <div className="page">
      <h1 className="page__title">{t('lists.favorites')}</h1>
      <InfiniteList
        query={favorites}
        label={t('lists.favorites')}
        itemKey={(video) => video.id}
        empty={<p>{t('lists.favoritesEmpty')}</p>}
        renderItem={(video) => (
          <div className="removable">
            <VideoTile video={video} />
            <button
              type="button"
              className="removable__button"
              aria-label={t('lists.remove', { title: video.title })}
              disabled={remove.isPending}
              onClick={() => remove.mutate(video.id)}
            >
              <CloseIcon size={16} />
            </button>
          </div>
        )}
      />
    </div>
  );
}
