export { analyticsModule, analyticsMigrations } from './module.ts';
export type { PixelConfig } from './service.ts';
export type { FunnelCounts, PlaybackRow, SummaryRow } from './reports.ts';
export { openLakeReader } from './lake-parquet.ts';
