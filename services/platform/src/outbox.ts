// What a worker thread needs to write an edge's batches on a real server, without loading the rest
// of the platform (its HTTP kit, queues, storage and SDKs): `@cliffhanger/platform/outbox`.
export { openPostgres } from './db/postgres.ts';
export { appendEdgeBatch } from './bus/edge-batches.ts';
export type { Database } from './db/database.ts';
