import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import type { FeedItem } from '../../api/catalog';
import { catalogQueries } from '../../api/catalogQueries';
import { ChevronLeftIcon, ChevronRightIcon } from '../../components/PageIcons';
import { useT } from '../../i18n/I18nProvider';
import { trackContentView } from '../../lib/conversions';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { Player } from './Player';
import { useWatchHistory } from './useWatchHistory';
import './video.css';
import './feed.css';

// A wheel turn this long (in pixels) moves one item; the next only after the pause, as a
// trackpad's one flick sends dozens of wheel events.
const WHEEL_DISTANCE = 60;
const WHEEL_PAUSE_MS = 700;
// The next page is fetched while this many items are still ahead.
const FETCH_AHEAD = 3;
// A series swiped past is not watched: the viewer's place in it (and its play) is recorded only once
// this much of it has played.
const WATCHED_SECONDS = 3;

/**
 * /feed: the vertical "For You" feed. One series at a time, full height, on the episode the
 * server picked (its first, or where the viewer stopped); swipe up or down (touch, wheel, arrow
 * keys, the side buttons) for the next or previous series, as in the episode player.
 */
export function FeedPage() {
  const t = useT();
  useDocumentTitle(t('nav.feed'));
  const feed = useInfiniteQuery(catalogQueries.feed());
  // A series the viewer watched moves to the end of their feed, so a later page can bring it again.
  const items = useMemo(() => {
    const seen = new Set<string>();
    return (feed.data?.pages.flatMap((page) => page.items) ?? []).filter((item) => !seen.has(item.video.id) && seen.add(item.video.id));
  }, [feed.data]);
  const [index, setIndex] = useState(0);
  const item: FeedItem | undefined = items[index];
  const history = useWatchHistory(item?.episode.id);

  const { hasNextPage, isFetchingNextPage, fetchNextPage } = feed;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && index >= items.length - FETCH_AHEAD) void fetchNextPage();
  }, [index, items.length, hasNextPage, isFetchingNextPage, fetchNextPage]);

  const episodeId = item?.episode.id;
  useEffect(() => {
    if (item && episodeId) trackContentView(item.video.id, episodeId);
    // Reported once per item shown, not when a later page arrives.
  }, [episodeId]);

  const hasNext = index < items.length - 1;
  const hasPrevious = index > 0;
  const step = useRef({ next: () => {}, previous: () => {} });
  step.current = {
    next: () => hasNext && setIndex(index + 1),
    previous: () => hasPrevious && setIndex(index - 1),
  };
  useFeedGestures(step);

  // The feed fills the window: the page behind it must not scroll.
  useEffect(() => {
    const root = document.documentElement;
    const before = root.style.overflow;
    root.style.overflow = 'hidden';
    return () => {
      root.style.overflow = before;
    };
  }, []);

  if (feed.isError && items.length === 0) {
    return (
      <div className="feed feed--state">
        <p>{t('list.error')}</p>
        <button type="button" className="button button--ghost" onClick={() => void feed.refetch()}>
          {t('list.retry')}
        </button>
      </div>
    );
  }
  if (!item) {
    return feed.isPending ? (
      <div className="feed" aria-busy="true">
        <div className="feed__stage">
          <div className="player skeleton" />
        </div>
        <p className="visually-hidden" role="status">{t('list.loading')}</p>
      </div>
    ) : (
      <div className="feed feed--state">
        <p>{t('feed.empty')}</p>
        <Link to="/" className="button button--primary">
          {t('notFound.home')}
        </Link>
      </div>
    );
  }

  const { video, episode } = item;
  const seriesLink = `/videos/${encodeURIComponent(video.id)}?ep=${encodeURIComponent(episode.id)}`;
  return (
    <section className="feed" aria-label={t('feed.label')} data-testid="feed" data-index={index}>
      <div className="feed__stage">
        <Player
          url={episode.playback.url}
          preloadUrl={items[index + 1]?.episode.playback.url}
          subtitles={episode.subtitles}
          videoId={video.id}
          episodeId={episode.id}
          poster={video.cover}
          hasNext={hasNext}
          hasPrevious={hasPrevious}
          onNext={() => step.current.next()}
          onPrevious={() => step.current.previous()}
          onEnded={() => step.current.next()}
          onPause={history.onStop}
          onPosition={(seconds) => {
            if (seconds >= WATCHED_SECONDS) history.onPosition(seconds);
          }}
        />
        {index === 0 && hasNext && <p className="feed__hint" aria-hidden="true">{t('feed.hint')}</p>}
      </div>
      <div className="feed__info" key={video.id} aria-live="polite">
        <h1 className="feed__title">
          <Link to={seriesLink}>{video.title}</Link>
        </h1>
        <p className="feed__meta">
          {t('video.episodeN', { n: episode.number })} / {video.episodeCount}
        </p>
        <ul className="chips chips--small feed__tags">
          {video.tags.map((tag) => (
            <li key={tag} className="chip">{tag}</li>
          ))}
        </ul>
        <Link to={seriesLink} className="button button--primary feed__episodes">
          {t('feed.allEpisodes')}
        </Link>
      </div>
      <div className="feed__nav">
        <button type="button" className="feed__step feed__step--up" aria-label={t('feed.previous')} disabled={!hasPrevious} onClick={() => step.current.previous()}>
          <ChevronLeftIcon />
        </button>
        <button type="button" className="feed__step feed__step--down" aria-label={t('feed.next')} disabled={!hasNext} onClick={() => step.current.next()}>
          <ChevronRightIcon />
        </button>
      </div>
    </section>
  );
}

/**
 * The desktop's ways to move through the feed: the mouse wheel or trackpad anywhere on the page,
 * and the up and down arrow keys (Page Up and Page Down too, unless the player already took them).
 */
function useFeedGestures(step: React.RefObject<{ next: () => void; previous: () => void }>) {
  useEffect(() => {
    let travelled = 0;
    let pausedUntil = 0;
    const onWheel = (event: WheelEvent) => {
      event.preventDefault();
      if (event.timeStamp < pausedUntil) return;
      travelled += event.deltaY;
      if (Math.abs(travelled) < WHEEL_DISTANCE) return;
      if (travelled > 0) step.current.next();
      else step.current.previous();
      travelled = 0;
      pausedUntil = event.timeStamp + WHEEL_PAUSE_MS;
    };
    const onKeyDown = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || target?.closest('input, textarea, select, [contenteditable="true"]')) return;
      const move = { ArrowDown: 'next', PageDown: 'next', ArrowUp: 'previous', PageUp: 'previous' } as const;
      const direction = move[event.key as keyof typeof move];
      if (!direction) return;
      event.preventDefault();
      step.current[direction]();
    };
    window.addEventListener('wheel', onWheel, { passive: false });
    window.addEventListener('keydown', onKeyDown);
    return () => {
      window.removeEventListener('wheel', onWheel);
      window.removeEventListener('keydown', onKeyDown);
    };
  }, [step]);
}
