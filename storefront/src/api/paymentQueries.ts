import { infiniteQueryOptions, queryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { PAGE_SIZE, pagedQuery } from '../lib/paging';
import { paymentCalls } from './payment';

/** The payment service's queries that more than one feature reads or refreshes. */
export const paymentQueries = {
  /** The card form's provider: fixed for the life of the server process, so asked once per page load. */
  config: () => queryOptions({ queryKey: ['payment-config'], queryFn: paymentCalls.config, staleTime: Infinity }),
  /** Orders, newest first, with the subscription they made. */
  payments: () =>
    infiniteQueryOptions({
      queryKey: ['payments'],
      queryFn: ({ pageParam }) => paymentCalls.payments(pageParam, PAGE_SIZE),
      ...pagedQuery,
    }),
  /** Series with the episodes this viewer unlocked with coins. */
  unlocked: () =>
    infiniteQueryOptions({
      queryKey: ['unlocked'],
      queryFn: ({ pageParam }) => paymentCalls.unlocked(pageParam, PAGE_SIZE),
      ...pagedQuery,
    }),
};

export function usePayments() {
  return useInfiniteQuery(paymentQueries.payments());
}
