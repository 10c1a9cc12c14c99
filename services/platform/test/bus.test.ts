import { createPostgresBus } from '../src/index.ts';
import { realDatabaseUrl, silentLogger } from '../src/testing.ts';
import { busContract } from './bus.contract.ts';

busContract(`postgres outbox on ${realDatabaseUrl ? 'PostgreSQL' : 'PGlite'}`, (database) =>
  createPostgresBus(database, silentLogger, { pollMs: 50 }),
);
