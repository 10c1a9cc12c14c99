import { useQueries } from '@tanstack/react-query';
import { useLocation } from 'react-router-dom';
import { RANKING_SECTIONS, type RankingSection } from '../../api/catalog';
import { catalogQueries } from '../../api/catalogQueries';
import type { HomeSection } from '../../api/types';
import type { MessageKey } from '../../i18n/en';
import { useT } from '../../i18n/I18nProvider';
import { landedAsReturningViewer } from '../../lib/attribution';
import { readStored, STORAGE_KEYS } from '../../lib/storage';
import { useBrowserValue } from '../../lib/useBrowserValue';

/** The home page's titles of the lists kept from what viewers play (their ids are the API's). */
export const RANKING_TITLES: Record<RankingSection, MessageKey> = {
  continue: 'home.continue',
  top: 'home.top',
  trending: 'home.trending',
  new: 'home.new',
};

export const isRankingSection = (id: string): id is RankingSection => (RANKING_SECTIONS as readonly string[]).includes(id);

/** A ranking row still on its way: shown as a row of placeholders. */
export interface PendingRow {
  id: RankingSection;
  pending: true;
}

/**
 * The ranking rows of the home page, "continue watching" first; an empty one is left out (a new
 * viewer has no history, a quiet week nothing rising). The page waits for the rows every viewer
 * shares with its sections (they come with the page, gateway/src/storefront.ts), so no row appears
 * later and pushes the others down. "Continue watching" is asked for only by a viewer who has been
 * here before (a stored token; a new visitor has no history), and holds its place with
 * placeholders until it answers.
 */
export function useRankingRows(): { pending: boolean; rows: Array<HomeSection | PendingRow> } {
  const t = useT();
  // Read once per visit of the page: a guest made while it shows has no history yet. On the page the
  // visit landed on, as the visitor arrived (the current-user call may have made them a guest since).
  const { key } = useLocation();
  // The server rendered the page for a new visitor: a returning one's row comes right after hydration.
  const returning = useBrowserValue(key, () => (key === 'default' ? landedAsReturningViewer() : readStored(STORAGE_KEYS.userToken) !== null), false);
  const results = useQueries({
    queries: RANKING_SECTIONS.map((section) => ({ ...catalogQueries.ranking(section), enabled: section !== 'continue' || returning })),
  });
  return {
    pending: RANKING_SECTIONS.some((section, index) => section !== 'continue' && results[index]?.isPending),
    rows: RANKING_SECTIONS.flatMap((section, index): Array<HomeSection | PendingRow> => {
      const result = results[index];
      if (section === 'continue' && returning && result?.isPending) return [{ id: section, pending: true }];
      const items = result?.data?.items ?? [];
      return items.length > 0 ? [{ id: section, title: t(RANKING_TITLES[section]), items }] : [];
    }),
  };
}
