// The pixel's writer thread (pixel.ts starts it on a real PostgreSQL server): it reads, hashes and
// writes the batches the edge hands it, on connections of its own, so the thread answering
// statics.png only copies each request out. One batch at a time, each answered when committed.
import { parentPort, workerData } from 'node:worker_threads';
import { openPostgres } from '@cliffhanger/platform/outbox';
import { hitRecorder, type ArrivedHit } from './pixel-hits.ts';

export interface WriterData {
  connectionString: string;
  ipKey: Uint8Array;
}
export type WriterRequest = { id: number; batch: ArrivedHit[]; users: [string, string | null][] } | { close: true };
export type WriterReply = { id: number; written: number } | { id: number; error: string };

const { connectionString, ipKey } = (workerData as { data: WriterData }).data;
const database = await openPostgres(connectionString, 1);
const recorder = hitRecorder(ipKey);
const port = parentPort!;

port.on('message', (request: WriterRequest) => {
  if ('close' in request) {
    void database.close().finally(() => port.close());
    return;
  }
  recorder.write(database, request.batch, new Map(request.users)).then(
    (written) => port.postMessage({ id: request.id, written } satisfies WriterReply),
    // The driver's own reason (the server's), not the failed statement with every hit as its parameter.
    (error: unknown) => port.postMessage({ id: request.id, error: reasonOf(error) } satisfies WriterReply),
  );
});

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? error.cause.message : error.message;
}
