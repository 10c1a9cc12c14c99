import { api } from './client';
import type { ReportConfig } from './types';

export const reportCalls = {
  pixelConfig: () => api.get<ReportConfig[]>('/api/reports'),
};
