import { SpanKind } from '@opentelemetry/api';
import type { Database } from '../db/database.ts';
import { continuing, inSpan } from './tracing.ts';

/**
 * The database whose transactions are spans of the trace that opened them (a request, a consumer);
 * transactions outside any trace (the bus's polls, jobs) stay untraced. PGlite's only: pg's
 * instrumentation makes PostgreSQL's query spans, and nothing instruments PGlite.
 */
export function traceTransactions(database: Database): Database {
  if (database.kind !== 'pglite') return database;
  const traced: Pick<Database, 'transaction'> = {
    transaction: (fn) =>
      inSpan('db transaction', { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'postgresql', 'cliffhanger.database': database.kind } }, continuing(null), () =>
        database.transaction(fn),
      ),
  };
  return Object.assign(Object.create(database) as Database, traced);
}
