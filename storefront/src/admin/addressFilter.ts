import type { FormEvent } from 'react';
import { useSearchParams } from 'react-router-dom';

/**
 * A list page's filter and page number, kept in the address so that a reload, the back button or a shared link
 * shows the same list. `search` takes the filter form's fields named in `keys` (a new search starts at page 1);
 * `goTo` changes the page and keeps the filter.
 */
export function useAddressFilter(keys: readonly string[]) {
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const search = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next = new URLSearchParams();
    for (const key of keys) {
      const value = String(form.get(key) ?? '').trim();
      if (value) next.set(key, value);
    }
    setParams(next);
  };
  const goTo = (to: number) => {
    const next = new URLSearchParams(params);
    next.set('page', String(to));
    setParams(next);
  };
  return { params, page, search, goTo };
}
