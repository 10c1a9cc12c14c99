import { pageOf, type Database, type Page } from '@cliffhanger/platform';
import { adminRepository as admin, type OrderFilter } from './admin-repository.ts';
import { orderView, type Money, type Order } from './views.ts';

/** An order as an operator sees it: its buyer, its payment at the provider, and its refunds. */
export interface AdminOrder extends Order {
  title: string;
  user: { id: string; email: string | null };
  payments: { id: string; status: Order['status']; succeededAt: string | null; failureReason: string | null }[];
  refunded: Money;
  refunds: { id: string; amount: Money; source: string; reason: string | null; status: string; createdAt: string; succeededAt: string | null }[];
}

/** The operators' order search (`GET /api/admin/orders`): by buyer email, order id, status and time. */
export function createOrdersAdmin({ database }: { database: Database }) {
  return {
    async findOrders(filter: OrderFilter, page: number, size: number): Promise<Page<AdminOrder>> {
      const rows = await admin.ordersPage(database.db, filter, (page - 1) * size, size + 1);
      const refunds = await admin.refundsOf(database.db, rows.slice(0, size).map((row) => row.id));
      const items = rows.map(
        (row): AdminOrder => ({
          ...orderView(row),
          title: row.title,
          user: { id: row.userId, email: row.email },
          payments: row.paymentId
            ? [{ id: row.paymentId, status: row.status, succeededAt: row.succeededAt?.toISOString() ?? null, failureReason: row.failureReason }]
            : [],
          refunded: { amount: row.refundedAmount, currency: row.currency },
          refunds: refunds
            .filter((refund) => refund.orderId === row.id)
            .map((refund) => ({
              id: refund.id,
              amount: { amount: refund.amount, currency: refund.currency },
              source: refund.source,
              reason: refund.reason,
              status: refund.status,
              createdAt: refund.createdAt.toISOString(),
              succeededAt: refund.succeededAt?.toISOString() ?? null,
            })),
        }),
      );
      return pageOf(items, page, size);
    },
  };
}
