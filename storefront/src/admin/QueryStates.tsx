import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ErrorState } from './ErrorState';
import { Loading } from './Loading';

/** A list, or one page of one (`Page.items`). */
type List = readonly unknown[] | { items: readonly unknown[] };

const isEmptyList = (data: List) => ('items' in data ? data.items : data).length === 0;

/**
 * What a section shows for one query: loading, its error with a retry, `empty` when the list it answered holds
 * nothing, else `children` with the data.
 */
export function QueryStates<T>({
  query,
  empty,
  children,
}: {
  query: UseQueryResult<T>;
  /** Said when the answer is an empty list; only for queries that answer a list or a page of one. */
  empty?: T extends List ? string : never;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading />;
  if (query.isError) return <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  if (empty !== undefined && isEmptyList(query.data as List)) return <p className="console-muted">{empty}</p>;
  return children(query.data);
}
