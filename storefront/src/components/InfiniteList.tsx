import { useEffect, useRef, type ReactNode } from 'react';
import type { InfiniteData, UseInfiniteQueryResult } from '@tanstack/react-query';
import type { Page } from '../api/client';
import { useT } from '../i18n/I18nProvider';

interface InfiniteListProps<T> {
  query: UseInfiniteQueryResult<InfiniteData<Page<T>>, unknown>;
  renderItem: (item: T) => ReactNode;
  itemKey: (item: T) => string;
  layout?: 'grid' | 'rows';
  empty?: ReactNode;
  label?: string;
}

/** A paged list that loads the next page as its end scrolls near, with the spec's three texts. */
export function InfiniteList<T>({ query, renderItem, itemKey, layout = 'grid', empty, label }: InfiniteListProps<T>) {
  const t = useT();
  const sentinel = useRef<HTMLDivElement>(null);
  const { data, hasNextPage, isFetchingNextPage, fetchNextPage, isPending, isError, refetch } = query;
  const items = data?.pages.flatMap((page) => page.items) ?? [];

  useEffect(() => {
    const element = sentinel.current;
    if (!element || !hasNextPage || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting) && !isFetchingNextPage) void fetchNextPage();
      },
      { rootMargin: '0px 0px 600px 0px' },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage, items.length]);

  if (isError && items.length === 0) {
    return (
      <div className="list-state">
        <p>{t('list.error')}</p>
        <button type="button" className="button button--ghost" onClick={() => void refetch()}>
          {t('list.retry')}
        </button>
      </div>
    );
  }

  if (!isPending && items.length === 0) {
    return <div className="list-state">{empty ?? <p>{t('list.empty')}</p>}</div>;
  }

  return (
    <div className="infinite-list">
      <ul className={layout === 'grid' ? 'poster-grid' : 'row-list'} aria-label={label} aria-busy={isPending || isFetchingNextPage}>
        {items.map((item) => (
          <li key={itemKey(item)}>{renderItem(item)}</li>
        ))}
      </ul>
      <div ref={sentinel} className="list-footer">
        {isPending || isFetchingNextPage ? (
          <p className="list-footer__text" role="status">
            <span className="spinner" aria-hidden="true" /> {t('list.loading')}
          </p>
        ) : hasNextPage ? (
          <button type="button" className="button button--ghost" onClick={() => void fetchNextPage()}>
            {t('list.loadMore')}
          </button>
        ) : (
          <p className="list-footer__text">{t('list.noMore')}</p>
        )}
      </div>
    </div>
  );
}
