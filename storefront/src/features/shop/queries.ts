import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { paymentCalls, type CardDetails, type Payer } from '../../api/payment';
import { PAGE_SIZE, pagedQuery } from '../../lib/paging';
import { userKey } from '../account/queries';

export function usePlans() {
  return useQuery({ queryKey: ['plans'], queryFn: paymentCalls.plans, staleTime: 5 * 60_000 });
}

export function usePayments() {
  return useInfiniteQuery({
    queryKey: ['payments'],
    queryFn: ({ pageParam }) => paymentCalls.payments(pageParam, PAGE_SIZE),
    ...pagedQuery,
  });
}

export function useCreateOrder() {
  return useMutation({ mutationFn: (planId: string) => paymentCalls.createOrder(planId) });
}

interface PayInput {
  orderId: string;
  card: CardDetails;
  payer: Payer;
  /** The same key for every retry of one order's payment, so a repeated submit charges once. */
  idempotencyKey: string;
}

/** Tokenizes the card with the provider, then pays the order with the token only. */
export function usePay() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ orderId, card, payer, idempotencyKey }: PayInput) => {
      const token = await paymentCalls.tokenizeCard(card);
      return paymentCalls.pay(orderId, token.id, payer, idempotencyKey);
    },
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: userKey });
      void queryClient.invalidateQueries({ queryKey: ['payments'] });
    },
  });
}

export function useCancelSubscription() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: paymentCalls.cancelSubscription,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: userKey });
      void queryClient.invalidateQueries({ queryKey: ['payments'] });
    },
  });
}
