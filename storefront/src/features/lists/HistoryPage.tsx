import { Link } from 'react-router-dom';
import { PlayIcon } from '../../components/PageIcons';
import { InfiniteList } from '../../components/InfiniteList';
import { LazyImage } from '../../components/LazyImage';
import { useT } from '../../i18n/I18nProvider';
import { formatClock, formatDate } from '../../lib/format';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { useWatchHistoryList } from './queries';
import './lists.css';

export function HistoryPage() {
  const t = useT();
  const history = useWatchHistoryList();
  useDocumentTitle(t('lists.history'));
  return (
    <div className="page">
      <h1 className="page__title">{t('lists.history')}</h1>
      <InfiniteList
        query={history}
        layout="rows"
        label={t('lists.history')}
        itemKey={(row) => row.video.id}
        empty={<p>{t('lists.historyEmpty')}</p>}
        renderItem={(row) => (
          <Link to={`/videos/${encodeURIComponent(row.video.id)}?ep=${encodeURIComponent(row.episode.id)}`} className="history-row">
            <span className="history-row__poster">
              <LazyImage src={row.video.cover} alt="" />
            </span>
            <span className="history-row__text">
              <strong>{row.video.title}</strong>
              <span>
                {t('lists.continue', { n: row.episode.number })} · {formatClock(row.positionSeconds)}
              </span>
              <span className="history-row__date">{t('lists.watchedOn', { date: formatDate(row.updatedAt) })}</span>
            </span>
            <span className="history-row__play" aria-hidden="true">
              <PlayIcon size={18} />
            </span>
          </Link>
        )}
      />
    </div>
  );
}
