import { useHomepage } from '../../api/catalogQueries';
import type { Video } from '../../api/types';
import { VideoTile } from '../../components/VideoTile';
import { useT } from '../../i18n/I18nProvider';

const COUNT = 6;

/** Other series sharing a category with this one first, then the rest of the home page's picks. */
export function MoreLikeThis({ video }: { video: Video }) {
  const t = useT();
  const homepage = useHomepage().data;
  if (!homepage) return null;
  const cards = [...homepage.carousel.items, ...homepage.sections.flatMap((section) => section.items)];
  const others = [...new Map(cards.filter((card) => card.id !== video.id).map((card) => [card.id, card])).values()];
  const shared = (tags: string[]) => tags.filter((tag) => video.tags.includes(tag)).length;
  const picks = others.sort((a, b) => shared(b.tags) - shared(a.tags)).slice(0, COUNT);
  if (picks.length === 0) return null;
  return (
    <section className="more-like-this" aria-labelledby="more-like-this">
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
    </section>
  );
}
