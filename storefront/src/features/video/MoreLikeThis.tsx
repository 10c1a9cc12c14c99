import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { catalogQueries } from '../../api/catalogQueries';
import type { Video } from '../../api/types';
import { VideoTile } from '../../components/VideoTile';
import { useT } from '../../i18n/I18nProvider';

const COUNT = 6;
/** How far below the screen the row starts loading: it is there by the time the viewer scrolls to it. */
const LOAD_MARGIN = '0px 0px 600px 0px';

/**
 * Other series sharing a category with this one first, then the rest of the home page's picks. The
 * picks (GET /api/homepage) load once the row nears the screen, not with the page: on a phone it sits
 * below the player, the episodes and the description, and most viewers never scroll to it while the
 * episode starts.
 */
export function MoreLikeThis({ video }: { video: Video }) {
  const t = useT();
  const spot = useRef<HTMLElement>(null);
  const [near, setNear] = useState(false);
  useEffect(() => {
    const element = spot.current;
    if (!element || near) return;
    if (typeof IntersectionObserver === 'undefined') return setNear(true);
    const observer = new IntersectionObserver((entries) => entries.some((entry) => entry.isIntersecting) && setNear(true), { rootMargin: LOAD_MARGIN });
    observer.observe(element);
    return () => observer.disconnect();
  }, [near]);
  const homepage = useQuery({ ...catalogQueries.homepage(), enabled: near }).data;
  const cards = homepage ? [...homepage.carousel.items, ...homepage.sections.flatMap((section) => section.items)] : [];
  const others = [...new Map(cards.filter((card) => card.id !== video.id).map((card) => [card.id, card])).values()];
  const shared = (tags: string[]) => tags.filter((tag) => video.tags.includes(tag)).length;
  const picks = others.sort((a, b) => shared(b.tags) - shared(a.tags)).slice(0, COUNT);
  return (
    <section ref={spot} className="more-like-this" aria-labelledby={picks.length > 0 ? 'more-like-this' : undefined}>
      {picks.length > 0 && (
        <>
          <h2 id="more-like-this" className="section-title">
            {t('video.moreLikeThis')}
          </h2>
          <ul className="poster-grid poster-grid--compact">
            {picks.map((card) => (
              <li key={card.id}>
                <VideoTile video={card} />
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
