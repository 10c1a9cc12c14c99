import { fireEvent, screen } from '@testing-library/react';
import type { Order, Plan, User } from '../../api/types';
import { keepUserToken } from '../../lib/attribution';
import { renderWithApp, serveApi, type ApiAnswer, type ApiCall, type ApiRoute } from '../../testing/renderWithApp';
import { OrderEasyPage } from './OrderEasyPage';
import { OrderResultPage } from './OrderResultPage';
import { ShoppingPage } from './ShoppingPage';

// The shop's suites (checkout.test.tsx with the sandbox provider, stripeCheckout.test.tsx with
// Stripe) against one gateway in memory, on the storefront's test kit (testing/renderWithApp.tsx).

type ShopRoute = (call: ApiCall) => ApiAnswer;

/** The gateway's shop as docs/api.md describes it: what it holds, and the routes a test may change. */
export interface Shop {
  user: User;
  orders: Order[];
  routes: Record<string, ShopRoute>;
  /** Every call, in order. */
  sent: ApiCall[];
  /** The calls of one method to one path. */
  calls: (method: string, path: string) => ApiCall[];
}

/**
 * A signed-in member with `coins` (on a fresh local storage), the `plans` on sale and no orders yet:
 * the user, the plans, new orders and the order list answered here, the payment provider's routes
 * (its config, the pay call) by `provider`, and anything else by `fallback`.
 */
export function serveShop({ plans, coins, provider, fallback }: { plans: Plan[]; coins: number; provider: Record<string, ShopRoute>; fallback: ApiRoute }): Shop {
  localStorage.clear();
  keepUserToken('user-token-1');
  const shop = {
    user: { id: 'u1', kind: 'member', email: 'ada@example.com', emailVerified: true, coins, bonusCoins: 0, vip: null, settings: { autoUnlock: false } },
    orders: [],
    routes: {},
  } as unknown as Shop;
  Object.assign(shop.routes, {
    'GET /api/user': () => ({ data: shop.user }),
    'GET /api/plan': () => ({ data: plans }),
    'POST /api/payment/order': (call: ApiCall) => {
      const plan = plans.find((entry) => entry.id === call.body?.planId)!;
      const order: Order = { id: `o${shop.orders.length + 1}`, planId: plan.id, price: plan.price, status: 'created', createdAt: '2026-11-22T10:00:00Z' };
      shop.orders.unshift(order);
      return { data: order };
    },
    'GET /api/payment': () => ({ data: { items: shop.orders, page: 1, size: 20, hasMore: false, subscription: null } }),
    ...provider,
  });
  const api = serveApi(shop.routes, { fallback });
  shop.sent = api.calls;
  shop.calls = api.callsTo;
  return shop;
}

/** The shop's pages (/shopping, /order/easy, /order/result) opened at `path`; returns the router. */
export function renderShop(path: string) {
  return renderWithApp(
    [
      { path: '/shopping', Component: ShoppingPage },
      { path: '/order/easy', Component: OrderEasyPage },
      { path: '/order/result', Component: OrderResultPage },
    ],
    { path },
  ).router;
}

/** Types `value` into the field labelled `label`. */
export const type = (label: string, value: string) => fireEvent.input(screen.getByLabelText(label), { target: { value } });
