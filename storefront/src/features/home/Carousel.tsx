import { useEffect, useRef, useState, type RefObject } from 'react';
import type { VideoCard } from '../../api/types';
import { ChevronLeftIcon, ChevronRightIcon, PlayIcon } from '../../components/PageIcons';
import { LazyImage } from '../../components/LazyImage';
import { useT } from '../../i18n/I18nProvider';

// Long enough to read a title and its line of facts.
const ADVANCE_MS = 8000;

/**
 * Slides move on their own only once the page has finished loading and while the carousel is on
 * screen: a phone still loading the page, or a carousel scrolled away, has better things to do than
 * repaint it, and the first slide stays put while a new visitor takes the page in.
 */
function useRotationAllowed(element: RefObject<HTMLElement | null>): boolean {
  // Drawn on the server (entry-server.tsx) there is no document: the page has not loaded there either.
  const [loaded, setLoaded] = useState(() => typeof document !== 'undefined' && document.readyState === 'complete');
  const [onScreen, setOnScreen] = useState(true);

  useEffect(() => {
    if (loaded) return;
    const done = () => setLoaded(true);
    window.addEventListener('load', done);
    return () => window.removeEventListener('load', done);
  }, [loaded]);

  useEffect(() => {
    const node = element.current;
    if (!node || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver(([entry]) => setOnScreen(Boolean(entry?.isIntersecting)));
    observer.observe(node);
    return () => observer.disconnect();
  }, [element]);

  return loaded && onScreen;
}

interface CarouselProps {
  title: string;
  items: VideoCard[];
}

/** The featured carousel: swipeable slides that advance on their own until the user takes over. */
export function Carousel({ title, items }: CarouselProps) {
  const t = useT();
  const track = useRef<HTMLDivElement>(null);
  const [current, setCurrent] = useState(0);
  const [paused, setPaused] = useState(false);
  const section = useRef<HTMLElement>(null);
  const rotating = useRotationAllowed(section);

  const goTo = (index: number) => {
    const element = track.current;
    if (!element || items.length === 0) return;
    const next = (index + items.length) % items.length;
    element.scrollTo({ left: next * element.clientWidth, behavior: 'smooth' });
  };

  useEffect(() => {
    if (paused || !rotating || items.length < 2 || window.matchMedia?.('(prefers-reduced-motion: reduce)').matches) return;
    const timer = window.setInterval(() => goTo(current + 1), ADVANCE_MS);
    return () => window.clearInterval(timer);
  });

  const onScroll = () => {
    const element = track.current;
    if (element && element.clientWidth) setCurrent(Math.round(element.scrollLeft / element.clientWidth));
  };

  if (items.length === 0) return null;
  return (
    <section
      ref={section}
      className="carousel"
      aria-roledescription="carousel"
      aria-label={title}
      onMouseEnter={() => setPaused(true)}
      onMouseLeave={() => setPaused(false)}
      // Focus anywhere inside (a slide's link) pauses it: the focus event does not bubble, so it is caught on the way down.
      onFocusCapture={() => setPaused(true)}
      onTouchStart={() => setPaused(true)}
    >
      <h2 className="section-title carousel__title">{title}</h2>
      <div className="carousel__track" ref={track} onScroll={onScroll}>
        {items.map((video, index) => (
          <div
            key={video.id}
            className="carousel__slide"
            role="group"
            aria-roledescription="slide"
            aria-label={t('home.slide', { n: index + 1, total: items.length })}
          >
            <div className="carousel__backdrop" style={{ backgroundImage: `url("${video.cover}")` }} aria-hidden="true" />
            {/* Plain links the app shell follows (data-app-link): cheaper to draw than React Router's. */}
            <a href={`/videos/${encodeURIComponent(video.id)}`} className="carousel__poster" data-app-link="" tabIndex={-1} aria-hidden="true">
              <LazyImage src={video.cover} alt="" eager={index < 2} />
            </a>
            <div className="carousel__info">
              <ul className="chips chips--small" aria-label={t('nav.categories')}>
                {video.tags.slice(0, 3).map((tag) => (
                  <li key={tag} className="chip">
                    {tag}
                  </li>
                ))}
              </ul>
              <h3 className="carousel__name">{video.title}</h3>
              <p className="carousel__meta">
                {t(video.episodeCount === 1 ? 'card.episode' : 'card.episodes', { count: video.episodeCount })} ·{' '}
                {t(video.playCount === 1 ? 'card.play' : 'card.plays', { count: video.playCount.toLocaleString('en-US') })}
              </p>
              <a href={`/videos/${encodeURIComponent(video.id)}`} className="button button--primary" data-app-link="">
                <PlayIcon size={18} /> {t('home.watchNow')}
              </a>
            </div>
          </div>
        ))}
      </div>
      <button type="button" className="carousel__arrow carousel__arrow--prev" onClick={() => goTo(current - 1)} aria-label={t('common.back')}>
        <ChevronLeftIcon />
      </button>
      <button type="button" className="carousel__arrow carousel__arrow--next" onClick={() => goTo(current + 1)} aria-label={t('home.more')}>
        <ChevronRightIcon />
      </button>
      <div className="carousel__dots">
        {items.map((video, index) => (
          <button
            key={video.id}
            type="button"
            className="carousel__dot"
            aria-current={index === current}
            aria-label={t('home.slide', { n: index + 1, total: items.length })}
            onClick={() => goTo(index)}
          />
        ))}
      </div>
    </section>
  );
}
