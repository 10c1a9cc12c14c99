import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { catalogQueries } from '../../api/catalogQueries';
import { paymentCalls } from '../../api/payment';
import { paymentQueries, usePayments } from '../../api/paymentQueries';
import type { Order, PaymentResult, Subscription } from '../../api/types';
import { userQueries } from '../../api/userQueries';
import { PAGE_SIZE } from '../../lib/paging';
import { authenticateInPage, type CardEntry } from './useCheckout';

/** How long /order/result waits for a payment to settle: a few looks, then it says the bank is still deciding. */
export const ORDER_POLL = { intervalMs: 2_000, looks: 6 };

export const shopQueries = {
  plans: () => queryOptions({ queryKey: ['plans'], queryFn: paymentCalls.plans, staleTime: 5 * 60_000 }),
  /** One order as the payments list shows it (newest first, so a fresh order is on the first page); null when absent. */
  order: (orderId: string) =>
    queryOptions({
      queryKey: ['order', orderId],
      queryFn: async (): Promise<Order | null> =>
        (await paymentCalls.payments(1, PAGE_SIZE)).items.find((order) => order.id === orderId) ?? null,
      staleTime: 0,
    }),
};

export function usePlans() {
  return useQuery(shopQueries.plans());
}

/** Which provider the card form tokenizes with, and how to reach it. */
export function usePaymentConfig() {
  return useQuery(paymentQueries.config());
}

/**
 * The order of /order/result, looked at again while it is still `created` (or not listed yet), at most
 * ORDER_POLL.looks times. `settling` is true while more looks are coming.
 */
export function useSettlingOrder(orderId: string | null) {
  const queryClient = useQueryClient();
  const options = shopQueries.order(orderId ?? '');
  const looksAt = (state: { dataUpdateCount: number; errorUpdateCount: number } | undefined) =>
    (state?.dataUpdateCount ?? 0) + (state?.errorUpdateCount ?? 0);
  const query = useQuery({
    ...options,
    enabled: Boolean(orderId),
    refetchInterval: (current) =>
      isSettled(current.state.data) || looksAt(current.state) >= ORDER_POLL.looks ? false : ORDER_POLL.intervalMs,
  });
  const settling = Boolean(orderId) && !isSettled(query.data) && looksAt(queryClient.getQueryState(options.queryKey)) < ORDER_POLL.looks;
  return { ...query, settling };
}

const isSettled = (order: Order | null | undefined) => Boolean(order && order.status !== 'created');

/**
 * After money moved: the wallet and VIP in the header, the locks of every series, the plans (a
 * first-purchase offer goes away once paid) and the order list all change.
 */
export function useRefreshAfterPayment() {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: userQueries.current().queryKey });
    void queryClient.invalidateQueries({ queryKey: catalogQueries.videos() });
    void queryClient.invalidateQueries({ queryKey: shopQueries.plans().queryKey });
    void queryClient.invalidateQueries({ queryKey: paymentQueries.payments().queryKey });
  };
}

/** Cancel (at period end) or resume the VIP subscription; the user's `vip` follows the answer at once. */
function useSubscriptionChange(call: () => Promise<Subscription>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: (subscription) => {
      queryClient.setQueryData(userQueries.current().queryKey, (user) =>
        user
          ? { ...user, vip: { planId: subscription.planId, renewsAt: subscription.renewsAt, cancelAtPeriodEnd: subscription.cancelAtPeriodEnd } }
          : user,
      );
      void queryClient.invalidateQueries({ queryKey: userQueries.current().queryKey });
      void queryClient.invalidateQueries({ queryKey: paymentQueries.payments().queryKey });
    },
  });
}

export function useCancelSubscription() {
  return useSubscriptionChange(paymentCalls.cancelSubscription);
}

export function useResumeSubscription() {
  return useSubscriptionChange(paymentCalls.resumeSubscription);
}

/** The viewer's subscription when its renewal failed and it waits for a new card (`past_due`), else null. */
export function usePastDueSubscription(): Subscription | null {
  const subscription = usePayments().data?.pages[0]?.subscription;
  return subscription?.status === 'past_due' ? subscription : null;
}

/** POST /api/payment/method's answer: the subscription after the charge, and the charge's outcome (`orderId`: the failed period's order). */
export type CardReplaced = Subscription & { payment: PaymentResult };

// Here, not in api/payment.ts: everything under api/ is in the first load, and only /shopping needs this call.
const replaceCard = (paymentToken: string) => api.post<CardReplaced>('/api/payment/method', { paymentToken });

/**
 * A past-due VIP's new card (POST /api/payment/method): tokenized by the provider, then charged for
 * the failed period at once. A 3-D Secure challenge is taken in the page when the provider's script
 * can (Stripe), and the answer is then the payment's outcome and the subscription it left. Whatever
 * the outcome, the user's VIP and the subscription are asked again.
 */
export function useReplaceCard() {
  const refresh = useRefreshAfterPayment();
  return useMutation({
    mutationFn: async (card: CardEntry): Promise<CardReplaced> => {
      const answer = await replaceCard(await card.tokenize());
      const { payment } = answer;
      if (payment.status !== 'requires_action' || !payment.clientSecret || !card.authenticate) return answer;
      const finished = await authenticateInPage(card.authenticate, payment.orderId, payment.clientSecret);
      if (!finished) return { ...answer, payment: { orderId: payment.orderId, status: 'requires_action' } };
      const subscription = finished.status === 'succeeded' ? (await paymentCalls.payments(1, 1)).subscription : null;
      return { ...answer, ...subscription, payment: finished };
    },
    onSettled: refresh,
  });
}
