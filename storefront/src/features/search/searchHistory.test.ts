import { beforeEach, describe, expect, it } from 'vitest';
import { clearSearchHistory, readSearchHistory, rememberSearch, SEARCH_HISTORY_LIMIT } from './searchHistory';

beforeEach(() => localStorage.clear());

describe('search history', () => {
  it('keeps the latest keywords first, once each, ten at most, across page loads', () => {
    rememberSearch('ceo');
    rememberSearch('  revenge ');
    rememberSearch('CEO');
    expect(readSearchHistory()).toEqual(['CEO', 'revenge']);
    for (let index = 0; index < 12; index++) rememberSearch(`kw${index}`);
    expect(readSearchHistory()).toHaveLength(SEARCH_HISTORY_LIMIT);
    expect(readSearchHistory()[0]).toBe('kw11');
  });

  it('ignores blank keywords and can be cleared', () => {
    rememberSearch('   ');
    expect(readSearchHistory()).toEqual([]);
    rememberSearch('ceo');
    clearSearchHistory();
    expect(readSearchHistory()).toEqual([]);
  });
});
