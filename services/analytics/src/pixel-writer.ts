// The pixel's writer thread (pixel.ts starts it on a real PostgreSQL server): it stores the batches
// the edge hands it (pixel-hits.ts: tokens become users, addresses hashes), on connections of its
// own, so the thread answering statics.png only copies each request out. One batch at a time, each
// answered when committed.
import { parentPort, workerData } from 'node:worker_threads';
import { openPostgres } from '@cliffhanger/platform/outbox';
import { hitStore, type ArrivedHit } from './pixel-hits.ts';

export interface WriterData {
  connectionString: string;
}
export type WriterRequest = { id: number; batch: ArrivedHit[]; users: [string, string | null][] } | { close: true };
export type WriterReply = { id: number } | { id: number; error: string };

const { connectionString } = (workerData as { data: WriterData }).data;
const database = await openPostgres(connectionString, 1);
const store = hitStore();
const port = parentPort!;

port.on('message', (request: WriterRequest) => {
  if ('close' in request) {
    void database.close().finally(() => port.close());
    return;
  }
  store.write(database, request.batch, new Map(request.users)).then(
    () => port.postMessage({ id: request.id } satisfies WriterReply),
    // The driver's own reason (the server's), not the failed statement with every hit as its parameter.
    (error: unknown) => port.postMessage({ id: request.id, error: reasonOf(error) } satisfies WriterReply),
  );
});

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? error.cause.message : error.message;
}
