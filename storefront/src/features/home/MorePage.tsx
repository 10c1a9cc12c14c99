import { useParams } from 'react-router-dom';
import { useCatalogList, useHomepage } from '../../api/catalogQueries';
import { InfiniteList } from '../../components/InfiniteList';
import { VideoTile } from '../../components/VideoTile';
import { useT } from '../../i18n/I18nProvider';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { isRankingSection, RANKING_TITLES } from './rankings';

/** /more/{id}: all series of one home section. */
export function MorePage() {
  const t = useT();
  const id = useParams().id ?? '';
  const homepage = useHomepage();
  const title = isRankingSection(id)
    ? t(RANKING_TITLES[id])
    : (homepage.data?.sections.find((section) => section.id === id)?.title ?? t('more.title'));
  useDocumentTitle(title);
  const list = useCatalogList({ sectionId: id });
  return (
    <div className="page">
      <h1 className="page__title">{title}</h1>
      <InfiniteList query={list} label={title} itemKey={(video) => video.id} renderItem={(video) => <VideoTile video={video} />} />
    </div>
  );
}
