import { and, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '@cliffhanger/platform';
import type { RefundRow } from './refund-repository.ts';
import { orders, refunds, type OrderStatus } from './schema.ts';
import type { OrderRow } from './repository.ts';

export interface OrderFilter {
  email?: string;
  orderId?: string;
  status?: OrderStatus;
  from?: Date;
  to?: Date;
}

/** The queries of the operators' order search (orders-admin.ts). */
export const adminRepository = {
  /** Orders matching every filter given, newest first; `limit` rows from `offset`. */
  ordersPage(db: Executor, filter: OrderFilter, offset: number, limit: number): Promise<OrderRow[]> {
    const where: SQL[] = [];
    if (filter.email) where.push(sql`lower(${orders.email}) = lower(${filter.email})`);
    if (filter.orderId) where.push(eq(orders.id, filter.orderId));
    if (filter.status) where.push(eq(orders.status, filter.status));
    if (filter.from) where.push(gte(orders.createdAt, filter.from));
    if (filter.to) where.push(lt(orders.createdAt, filter.to));
    return db
      .select()
      .from(orders)
      .where(and(...where))
      .orderBy(desc(orders.createdAt), desc(orders.id))
      .offset(offset)
      .limit(limit);
  },

  refundsOf(db: Executor, orderIds: string[]): Promise<RefundRow[]> {
    if (orderIds.length === 0) return Promise.resolve([]);
    return db.select().from(refunds).where(inArray(refunds.orderId, orderIds)).orderBy(refunds.createdAt);
  },
};
