import { queryOptions } from '@tanstack/react-query';
import { reportCalls } from './reports';

export const reportQueries = {
  // The operator's pixel ids change rarely; one read per visit is enough.
  pixelConfig: () => queryOptions({ queryKey: ['reports'], queryFn: reportCalls.pixelConfig, staleTime: Infinity }),
};
