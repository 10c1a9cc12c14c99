import { readStored, STORAGE_KEYS, writeStored } from '../../lib/storage';

export const SEARCH_HISTORY_LIMIT = 10;

export function readSearchHistory(): string[] {
  try {
    const parsed: unknown = JSON.parse(readStored(STORAGE_KEYS.searchHistory) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((entry): entry is string => typeof entry === 'string') : [];
  } catch {
    return [];
  }
}

/** Puts a keyword first, without duplicates, keeping the latest ten. */
export function rememberSearch(keyword: string): string[] {
  const cleaned = keyword.trim();
  if (!cleaned) return readSearchHistory();
  const next = [cleaned, ...readSearchHistory().filter((entry) => entry.toLowerCase() !== cleaned.toLowerCase())].slice(
    0,
    SEARCH_HISTORY_LIMIT,
  );
  writeStored(STORAGE_KEYS.searchHistory, JSON.stringify(next));
  return next;
}

export function clearSearchHistory(): void {
  writeStored(STORAGE_KEYS.searchHistory, null);
}
