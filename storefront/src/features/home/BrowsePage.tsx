import { useNavigate, useParams } from 'react-router-dom';
import { useCatalogList, useTags } from '../../api/catalogQueries';
import { InfiniteList } from '../../components/InfiniteList';
import { VideoTile } from '../../components/VideoTile';
import { useT } from '../../i18n/I18nProvider';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { ChipBar } from './ChipBar';

/** /browse/{id}: every series of one category, with the other categories a tap away. */
export function BrowsePage() {
  const t = useT();
  const navigate = useNavigate();
  const id = useParams().id ?? '';
  const tags = useTags();
  const name = tags.data?.find((tag) => tag.id === id)?.name ?? t('browse.title');
  useDocumentTitle(name);
  const list = useCatalogList({ tagId: id });
  return (
    <div className="page">
      <h1 className="page__title">{name}</h1>
      <ChipBar
        label={t('nav.categories')}
        chips={(tags.data ?? []).map((tag) => ({ id: tag.id, label: tag.name }))}
        selected={id}
        onSelect={(tagId) => navigate(`/browse/${encodeURIComponent(tagId)}`, { replace: true })}
      />
      <InfiniteList query={list} label={name} itemKey={(video) => video.id} renderItem={(video) => <VideoTile video={video} />} />
    </div>
  );
}
