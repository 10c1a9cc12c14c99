import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { admin, type OrderFilter } from '../api';

export const PAGE_SIZE = 20;

export const useOrders = (filter: OrderFilter, page: number) =>
  useQuery({ queryKey: ['admin', 'orders', filter, page], queryFn: () => admin.orders(filter, page, PAGE_SIZE), placeholderData: keepPreviousData });
