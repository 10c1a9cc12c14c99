import { Worker, type WorkerOptions } from 'node:worker_threads';

const entryModule = new URL('./thread-entry.mjs', import.meta.url);

/**
 * A worker thread running the module `entry`, TypeScript sources included: a thread started from a
 * test runner does not inherit the hooks that load this process's sources, so every thread starts in
 * a small JavaScript module that adds tsx's when the entry needs them (thread-entry.mjs). `data` is
 * the entry's `workerData.data`.
 */
export function startThread(entry: URL, options: Omit<WorkerOptions, 'workerData'> & { data?: unknown } = {}): Worker {
  const { data, ...workerOptions } = options;
  return new Worker(entryModule, { ...workerOptions, workerData: { entry: entry.href, data } });
}
