import { createColumnHelper, tableFeatures, useTable } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import { Link } from 'react-router-dom';
import { useAddressFilter } from '../addressFilter';
import { ORDER_STATUSES, dayStart, formatMoney, formatTime, type AdminOrder, type OrderFilter } from '../api';
import { DataTable } from '../DataTable';
import { DateRange } from '../DateRange';
import { Paging } from '../Paging';
import { QueryStates } from '../QueryStates';
import { useConsoleI18n } from '../i18n';
import type { ConsoleKey } from '../texts';
import { OrderDetails } from './OrderDetails';
import { useOrders } from './queries';

const features = tableFeatures({});
const column = createColumnHelper<typeof features, AdminOrder>();
const NO_ORDERS: AdminOrder[] = [];

/** Orders by buyer email, order id, status and dates (GET /api/admin/orders), in pages; the filter lives in the address. */
export default function OrdersPage() {
  const { t, locale } = useConsoleI18n();
  const { params, page, search, goTo } = useAddressFilter(['email', 'orderId', 'status', 'from', 'to']);
  const filter: OrderFilter = {
    email: params.get('email') || undefined,
    orderId: params.get('orderId') || undefined,
    status: params.get('status') || undefined,
    from: dayStart(params.get('from')),
    to: dayStart(params.get('to'), true),
  };
  const orders = useOrders(filter, page);
  const [open, setOpen] = useState<AdminOrder | null>(null);

  const columns = useMemo(
    () =>
      column.columns([
      column.accessor('id', {
        header: () => t('orders.id'),
        cell: (info) => (
          <button type="button" className="console-link" onClick={() => setOpen(info.row.original)}>
            <code>{info.getValue()}</code>
          </button>
        ),
      }),
      column.accessor('createdAt', { header: () => t('orders.created'), cell: (info) => formatTime(info.getValue(), locale) }),
      column.accessor((order) => order.user.email ?? order.user.id, {
        id: 'buyer',
        header: () => t('orders.buyer'),
        cell: (info) => <Link to={`/admin/users/${encodeURIComponent(info.row.original.user.id)}`}>{info.getValue()}</Link>,
      }),
      column.accessor((order) => order.title ?? order.planId, { id: 'plan', header: () => t('orders.plan') }),
      column.accessor('price', { header: () => t('orders.price'), cell: (info) => formatMoney(info.getValue(), locale) }),
      column.accessor('status', {
        header: () => t('orders.status'),
        cell: (info) => <span className={`console-status console-status--${info.getValue()}`}>{t(`status.${info.getValue()}` as ConsoleKey)}</span>,
      }),
      ]),
    [t, locale],
  );
  // Each cell names its column, shown beside it where the table becomes one card per order (phones).
  const headings: Record<string, string> = {
    id: t('orders.id'),
    createdAt: t('orders.created'),
    buyer: t('orders.buyer'),
    plan: t('orders.plan'),
    price: t('orders.price'),
    status: t('orders.status'),
  };
  // One page of the server's at a time: the table draws it, the API pages (manual paging).
  const table = useTable({ features, columns, data: orders.data?.items ?? NO_ORDERS });


  return (
    <section aria-labelledby="orders-title">
      <h1 id="orders-title">{t('orders.title')}</h1>
      <form role="search" aria-label={t('orders.search')} className="console-filters" onSubmit={search}>
        <label>
          {t('orders.email')}
          <input name="email" type="search" defaultValue={params.get('email') ?? ''} />
        </label>
        <label>
          {t('orders.orderId')}
          <input name="orderId" type="search" defaultValue={params.get('orderId') ?? ''} />
        </label>
        <label>
          {t('orders.status')}
          <select name="status" defaultValue={params.get('status') ?? ''}>
            <option value="">{t('orders.anyStatus')}</option>
            {ORDER_STATUSES.map((status) => (
              <option key={status} value={status}>
                {t(`status.${status}` as ConsoleKey)}
              </option>
            ))}
          </select>
        </label>
        <DateRange from={params.get('from') ?? ''} to={params.get('to') ?? ''} />
        <button type="submit" className="console-button console-button--primary">
          {t('orders.submit')}
        </button>
      </form>
      <QueryStates query={orders} empty={t('orders.none')}>
        {() => <DataTable table={table} labelledBy="orders-title" busy={orders.isFetching} headings={headings} />}
      </QueryStates>
      {orders.data && <Paging page={page} hasMore={orders.data.hasMore} onPage={goTo} />}
      {open && <OrderDetails order={open} onClose={() => setOpen(null)} />}
    </section>
  );
}
