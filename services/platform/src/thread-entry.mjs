// The first module of every thread `startThread` starts (threads.ts): a TypeScript entry is loaded
// through tsx's hooks, which a thread started from a test runner does not inherit.
import { workerData } from 'node:worker_threads';

if (/\.[cm]?tsx?$/.test(new URL(workerData.entry).pathname)) (await import('tsx/esm/api')).register();
await import(workerData.entry);
