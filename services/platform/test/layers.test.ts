import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express, { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { inSeries, literalHead, onlyUnder } from '../src/http/layers.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

const servers: { close(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** Serves `handlers` as one app that answers what passed through it, or the error that reached it. */
async function serve(...handlers: RequestHandler[]) {
  const onError: ErrorRequestHandler = (error: Error, _req, res, _next) => void res.status(500).json({ error: error.message, seen: res.locals.seen });
  const app = express();
  app.use((_req, res, next) => {
    res.locals.seen = [];
    next();
  });
  for (const handler of handlers) app.use(handler);
  app.use((_req, res) => void res.json({ seen: res.locals.seen }));
  app.use(onError);
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await once(server, 'listening');
  return async (path: string) => {
    const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
    return { status: answer.status, body: (await answer.json()) as { seen: string[]; error?: string } };
  };
}

const mark = (name: string): RequestHandler => (_req, res, next) => {
  res.locals.seen.push(name);
  next();
};

describe('inSeries', () => {
  it('runs its handlers in order, a later one after an earlier one that waited, then goes on', async () => {
    const waits: RequestHandler = async (_req, res, next) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      res.locals.seen.push('waited');
      next();
    };
    const call = await serve(inSeries('test', mark('one'), waits, mark('three')));
    expect(await call('/')).toEqual({ status: 200, body: { seen: ['one', 'waited', 'three'] } });
  });

  it('stops where one answers', async () => {
    const answers: RequestHandler = (_req, res) => void res.status(405).json({ seen: [...res.locals.seen, 'answered'] });
    const call = await serve(inSeries('test', mark('one'), answers, mark('never')));
    expect(await call('/')).toEqual({ status: 405, body: { seen: ['one', 'answered'] } });
  });

  it('hands an error on to the error handler, whether passed on, thrown or a rejected promise, and runs nothing after it', async () => {
    const passes: RequestHandler = (_req, _res, next) => next(new Error('passed'));
    const throws: RequestHandler = () => {
      throw new Error('thrown');
    };
    const rejects: RequestHandler = async () => {
      await Promise.resolve();
      throw new Error('rejected');
    };
    for (const [failing, message] of [[passes, 'passed'], [throws, 'thrown'], [rejects, 'rejected']] as const) {
      const call = await serve(inSeries('test', mark('one'), failing, mark('never')));
      expect(await call('/')).toEqual({ status: 500, body: { error: message, seen: ['one'] } });
    }
  });
});

describe('onlyUnder', () => {
  const routes = () => {
    const router = Router();
    router.get('/api/user/oauth/:provider/start', (req, res) => void res.json({ seen: [...res.locals.seen, `start ${req.params.provider}`] }));
    router.use(mark('walked'));
    return router;
  };

  it('asks its routers for the prefix itself and below it, in any letter case, and for nothing else', async () => {
    const call = await serve(...onlyUnder([literalHead('/api/user/oauth/:provider/start')], [routes()]));
    expect((await call('/api/user/oauth/google/start')).body.seen).toEqual(['start google']);
    expect((await call('/API/User/OAuth/google/start/')).body.seen).toEqual(['start google']);
    expect((await call('/api/user/oauth')).body.seen).toEqual(['walked']);
    expect((await call('/api/user/oauthx/google/start')).body.seen).toEqual([]);
    expect((await call('/api/homepage')).body.seen).toEqual([]);
  });

  it('asks every router in turn, and all of them for everything without prefixes', async () => {
    const call = await serve(...onlyUnder(['/api/user'], [mark('first'), mark('second')]));
    expect((await call('/api/user')).body.seen).toEqual(['first', 'second']);
    const everything = await serve(...onlyUnder([], [mark('first')]));
    expect((await everything('/anything')).body.seen).toEqual(['first']);
  });
});

describe('literalHead', () => {
  it('is a route path up to the last whole segment before a parameter or pattern', () => {
    expect(literalHead('/api/user/login')).toBe('/api/user/login');
    expect(literalHead('/api/user/oauth/:provider/start')).toBe('/api/user/oauth');
    expect(literalHead('/api/episode-:id')).toBe('/api');
    expect(literalHead('/files/*path')).toBe('/files');
    expect(literalHead('/:anything')).toBe('/');
  });
});
