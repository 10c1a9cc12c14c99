import { useQueries } from '@tanstack/react-query';
import { RANKING_SECTIONS, type RankingSection } from '../../api/catalog';
import { catalogQueries } from '../../api/catalogQueries';
import type { HomeSection } from '../../api/types';
import type { MessageKey } from '../../i18n/en';
import { useT } from '../../i18n/I18nProvider';

/** The home page's titles of the lists kept from what viewers play (their ids are the API's). */
export const RANKING_TITLES: Record<RankingSection, MessageKey> = {
  continue: 'home.continue',
  top: 'home.top',
  trending: 'home.trending',
  new: 'home.new',
};

export const isRankingSection = (id: string): id is RankingSection => (RANKING_SECTIONS as readonly string[]).includes(id);

/**
 * The ranking rows of the home page, "continue watching" first; an empty one is left out (a new
 * viewer has no history, a quiet week nothing rising). The page waits for them with its sections,
 * so no row appears later and pushes the others down.
 */
export function useRankingRows(): { pending: boolean; rows: HomeSection[] } {
  const t = useT();
  const results = useQueries({ queries: RANKING_SECTIONS.map((section) => catalogQueries.ranking(section)) });
  return {
    pending: results.some((result) => result.isPending),
    rows: RANKING_SECTIONS.flatMap((section, index) => {
      const items = results[index]?.data?.items ?? [];
      return items.length > 0 ? [{ id: section, title: t(RANKING_TITLES[section]), items }] : [];
    }),
  };
}
