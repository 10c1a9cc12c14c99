import { Link, useParams } from 'react-router-dom';
import { ChevronLeftIcon } from '../../components/PageIcons';
import { InfiniteList } from '../../components/InfiniteList';
import { VideoTile } from '../../components/VideoTile';
import { useT } from '../../i18n/I18nProvider';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { useSearchResults } from './queries';

/** /searchDetail/{keyword}: every result of one search, page after page. */
export function SearchDetailPage() {
  const t = useT();
  const keyword = useParams().id ?? '';
  const results = useSearchResults(keyword);
  const title = t('search.results', { keyword });
  useDocumentTitle(title);
  return (
    <div className="page">
      <div className="page__heading">
        <Link to={`/search?q=${encodeURIComponent(keyword)}`} className="icon-button" aria-label={t('common.back')}>
          <ChevronLeftIcon />
        </Link>
        <h1 className="page__title">{title}</h1>
      </div>
      <InfiniteList
        query={results}
        label={title}
        itemKey={(video) => video.id}
        renderItem={(video) => <VideoTile video={video} />}
        empty={<p>{t('search.noResults', { keyword })}</p>}
      />
    </div>
  );
}
