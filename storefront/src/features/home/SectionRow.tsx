import { memo } from 'react';
import type { HomeSection } from '../../api/types';
import { ChevronRightIcon } from '../../components/PageIcons';
import { VideoTile } from '../../components/VideoTile';
import { useT } from '../../i18n/I18nProvider';

interface SectionRowProps {
  section: HomeSection;
  eager?: boolean;
}

/**
 * One category section of the home page: a swipeable row of posters and a link to all of them.
 * Drawn again only when its own list changes, not whenever the page does (another query answering,
 * a chip chosen): a home page holds a hundred posters or more.
 */
export const SectionRow = memo(function SectionRow({ section, eager }: SectionRowProps) {
  const t = useT();
  const headingId = `section-${section.id}`;
  return (
    <section className="row" aria-labelledby={headingId}>
      <div className="row__head">
        <h2 id={headingId} className="section-title">
          {section.title}
        </h2>
        {/* "More" alone tells a screen reader or a search engine nothing: the section's title goes with it. */}
        <a href={`/more/${encodeURIComponent(section.id)}`} className="row__more" data-app-link="">
          {t('home.more')}
          <span className="visually-hidden">: {section.title}</span> <ChevronRightIcon size={16} />
        </a>
      </div>
      <ul className="row__track">
        {section.items.map((video) => (
          <li key={video.id}>
            <VideoTile video={video} eager={eager} />
          </li>
        ))}
      </ul>
    </section>
  );
},
// The ranking rows are made afresh on every render of the page, around the same query data.
(before, after) => before.eager === after.eager && before.section.id === after.section.id && before.section.title === after.section.title && before.section.items === after.section.items);
