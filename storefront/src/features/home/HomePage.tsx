import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useCatalogList, useHomepage, useTags } from '../../api/catalogQueries';
import type { HomeSection } from '../../api/types';
import { InfiniteList } from '../../components/InfiniteList';
import { VideoTile } from '../../components/VideoTile';
import { useT } from '../../i18n/I18nProvider';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { Carousel } from './Carousel';
import { ChipBar } from './ChipBar';
import { SectionRow } from './SectionRow';
import { HomeSkeleton, RowSkeleton } from './HomeSkeleton';
import { useRankingRows, type PendingRow } from './rankings';
import './home.css';

const ALL = 'all';

export function HomePage() {
  const t = useT();
  useDocumentTitle(undefined);
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'browse' ? 'browse' : 'recommend';
  const homepage = useHomepage();
  const tags = useTags();
  const section = params.get('section') ?? ALL;
  const tag = params.get('tag') ?? tags.data?.[0]?.id ?? '';

  const select = (changes: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(changes)) next.set(key, value);
    setParams(next, { replace: true, preventScrollReset: true });
  };

  const sectionList = useCatalogList({ sectionId: section }, tab === 'recommend' && section !== ALL);
  const tagList = useCatalogList({ tagId: tag }, tab === 'browse' && Boolean(tag));
  const rankings = useRankingRows();

  if (homepage.isPending || rankings.pending) return <HomeSkeleton />;
  const sections = homepage.data?.sections ?? [];
  const rows = [...rankings.rows, ...sections];

  return (
    <div className="home">
      <h1 className="visually-hidden">
        {t('app.name')} — {t('app.tagline')}
      </h1>
      {homepage.data && <Carousel title={homepage.data.carousel.title || t('home.featured')} items={homepage.data.carousel.items} />}
      <div
        className="tabs"
        role="tablist"
        aria-label={t('app.name')}
        onKeyDown={(event) => {
          // Arrow keys move between the two tabs, as the ARIA tabs pattern expects.
          if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
          const next = tab === 'recommend' ? 'browse' : 'recommend';
          select({ tab: next });
          event.currentTarget.querySelector<HTMLButtonElement>(`[data-tab="${next}"]`)?.focus();
        }}
      >
        {(['recommend', 'browse'] as const).map((name) => (
          <button
            key={name}
            type="button"
            role="tab"
            data-tab={name}
            aria-selected={tab === name}
            tabIndex={tab === name ? 0 : -1}
            className="tabs__tab"
            onClick={() => select({ tab: name })}
          >
            {t(name === 'recommend' ? 'home.recommend' : 'home.browse')}
          </button>
        ))}
      </div>
      {tab === 'recommend' ? (
        <div role="tabpanel" aria-label={t('home.recommend')}>
          <ChipBar
            label={t('nav.categories')}
            chips={[{ id: ALL, label: t('home.all') }, ...sections.map((entry) => ({ id: entry.id, label: entry.title }))]}
            selected={section}
            onSelect={(id) => select({ section: id })}
          />
          {section === ALL ? (
            <SectionRows rows={rows} />
          ) : (
            <InfiniteList query={sectionList} itemKey={(video) => video.id} renderItem={(video) => <VideoTile video={video} />} />
          )}
        </div>
      ) : (
        <div role="tabpanel" aria-label={t('home.browse')}>
          <ChipBar
            label={t('nav.categories')}
            chips={(tags.data ?? []).map((entry) => ({ id: entry.id, label: entry.name }))}
            selected={tag}
            onSelect={(id) => select({ tag: id })}
          />
          {tag && <InfiniteList query={tagList} itemKey={(video) => video.id} renderItem={(video) => <VideoTile video={video} />} />}
        </div>
      )}
    </div>
  );
}

// As the page loads, the rows of the first screen are rendered with it (by the server too) and the
// others follow one per task, so that no single piece of work keeps a phone from answering a tap for
// long. Coming back to the page later, all at once: Back restores a scroll position deep in the list.
const FIRST_ROWS = 1;
let renderedBefore = false;

function SectionRows({ rows }: { rows: Array<HomeSection | PendingRow> }) {
  const [shown, setShown] = useState(() => (renderedBefore ? rows.length : FIRST_ROWS));
  useEffect(() => {
    renderedBefore = true;
  }, []);
  useEffect(() => {
    if (shown >= rows.length) return;
    const timer = window.setTimeout(() => setShown((count) => count + 1), 0);
    return () => window.clearTimeout(timer);
  }, [shown, rows.length]);
  // The first row of posters is on the first screen: its pictures load at once.
  const firstRow = rows.find((entry) => !('pending' in entry));
  return rows
    .slice(0, shown)
    .map((entry) => ('pending' in entry ? <RowSkeleton key={entry.id} /> : <SectionRow key={entry.id} section={entry} eager={entry === firstRow} />));
}
