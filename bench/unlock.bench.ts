import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { composeTarget, createPlatform, loadConfig, systemContext, type Database } from '@cliffhanger/platform';
import { tempDir } from '@cliffhanger/platform/testing';
import type { LocalCatalogClient } from '@cliffhanger/catalog';
import type { UnlockClient } from '@cliffhanger/unlock';
import { registry } from '../gateway/src/registry.ts';
import { report, startServer } from './lib.ts';

// Unlocks per second: `POST /api/video/unlock` through the whole gateway (session, catalog terms,
// wallet lock, ledger, unlock, outbox event) against the bare SQL transaction of an unlock (wallet
// lock, unlock row, wallet update, ledger entry) served by node:http, on the same database in the
// same process. Every request unlocks an episode not yet unlocked: VIEWERS × EPISODES pairs.
const VIEWERS = 100;
const EPISODES = 150;
const PRICE = 1;

const role = process.env.BENCH_ROLE;
const script = path.relative(path.dirname(fileURLToPath(import.meta.url)), fileURLToPath(import.meta.url));

/** The same transaction the unlock service runs, as plain SQL: a baseline, not a second implementation. */
async function bareUnlock(database: Database, userId: string, episodeId: string): Promise<number> {
  return database.rawTransaction(async (sql) => {
    const [wallet] = await sql.query<{ paid_coins: number; bonus_coins: number }>('select paid_coins, bonus_coins from unlock.wallets where user_id = $1 for update', [userId]);
    if (!wallet) throw new Error('no wallet');
    const inserted = await sql.query(
      `insert into unlock.unlocks (user_id, episode_id, video_id, episode_number, price_coins, unlocked_at)
       values ($1, $2, 'bare', 1, $3, now()) on conflict do nothing returning 1`,
      [userId, episodeId, PRICE],
    );
    if (inserted.length === 0) return wallet.paid_coins;
    const paid = wallet.paid_coins - PRICE;
    await sql.query('update unlock.wallets set paid_coins = $2, updated_at = now() where user_id = $1', [userId, paid]);
    await sql.query(
      `insert into unlock.ledger (user_id, kind, reference, paid_delta, bonus_delta, paid_balance, bonus_balance, created_at)
       values ($1, 'unlock', $2, $3, 0, $4, $5, now())`,
      [userId, `bare:${userId}:${episodeId}`, -PRICE, paid, wallet.bonus_coins],
    );
    return paid;
  });
}

if (role === 'servers') {
  const platform = await createPlatform(loadConfig({ ...process.env, DATA_DIR: tempDir('bench-unlock-'), DEMO: '0' }));
  const { app, instances } = await composeTarget(platform, registry);
  const { admin } = instances.get('catalog')!.client as LocalCatalogClient;
  const unlocks = instances.get('unlock')!.client as UnlockClient;
  await admin.createSeries({ id: 'bench', title: 'Bench Series', freeEpisodes: 0, priceCoins: PRICE });
  await admin.planEpisodes('bench', EPISODES);
  const gateway = app.listen(0, '127.0.0.1');
  await once(gateway, 'listening');
  const gatewayUrl = `http://127.0.0.1:${(gateway.address() as { port: number }).port}`;
  // Viewers with coins for every episode, twice: one set for each side.
  const viewers: { token: string; userId: string }[] = [];
  for (let i = 0; i < 2 * VIEWERS; i++) {
    const answer = await fetch(`${gatewayUrl}/api/user`);
    const { data } = (await answer.json()) as { data: { id: string } };
    viewers.push({ token: answer.headers.get('x-user-token')!, userId: data.id });
    await unlocks.creditOrder(systemContext('bench'), { orderId: `bench-${i}`, userId: data.id, coins: EPISODES * PRICE, bonusCoins: 0 });
  }
  const bare = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const { userId, episodeId } = JSON.parse(body) as { userId: string; episodeId: string };
      bareUnlock(platform.database, userId, episodeId).then(
        (balance) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 200, message: 'ok', data: { episodeId, balance } })),
        (error: Error) => res.writeHead(500).end(error.message),
      );
    });
  });
  bare.listen(0, '127.0.0.1');
  await once(bare, 'listening');
  const bareUrl = `http://127.0.0.1:${(bare.address() as { port: number }).port}`;
  fs.writeFileSync(process.env.BENCH_VIEWERS!, JSON.stringify({ bareUrl, viewers }));
  console.log(`listening ${gatewayUrl}`);
  process.on('SIGTERM', () => process.exit(0));
} else {
  const viewersFile = path.join(tempDir('bench-unlock-viewers-'), 'viewers.json');
  const servers = await startServer(script, { BENCH_ROLE: 'servers', BENCH_VIEWERS: viewersFile });
  const gatewayUrl = servers.url;
  const { bareUrl, viewers } = JSON.parse(fs.readFileSync(viewersFile, 'utf8')) as { bareUrl: string; viewers: { token: string; userId: string }[] };
  const sides = [
    { url: `${gatewayUrl}/api/video/unlock`, viewers: viewers.slice(0, VIEWERS), gateway: true },
    { url: bareUrl, viewers: viewers.slice(VIEWERS), gateway: false },
  ];
  // Each side walks its own viewer × episode pairs in order, so every request is a first unlock.
  const next = sides.map(() => 0);
  const unlocksPerSecond = async (side: number, seconds: number) => {
    const { url, viewers: mine, gateway } = sides[side]!;
    const result = await autocannon({
      url,
      method: 'POST',
      connections: 10,
      duration: seconds,
      headers: { 'content-type': 'application/json' },
      requests: [
        {
          setupRequest: (request) => {
            const pair = next[side]!++ % (VIEWERS * EPISODES);
            const viewer = mine[pair % VIEWERS]!;
            const episodeId = `bench-ep${Math.floor(pair / VIEWERS) + 1}`;
            return gateway
              ? { ...request, headers: { ...request.headers, 'x-user-token': viewer.token }, body: JSON.stringify({ episodeId }) }
              : { ...request, body: JSON.stringify({ userId: viewer.userId, episodeId }) };
          },
        },
      ],
    });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    return result.requests.average;
  };
  // Sides take turns: a 1 s warm-up, then three 2 s rounds; the median of each side counts.
  const rounds: number[][] = [[], []];
  for (const side of [0, 1]) await unlocksPerSecond(side, 1);
  for (let round = 0; round < 3; round++) for (const side of [0, 1]) rounds[side]!.push(await unlocksPerSecond(side, 2));
  await servers.stop();
  if (next.some((sent) => sent > VIEWERS * EPISODES)) console.warn('unlock bench: more requests than first unlocks; raise VIEWERS or EPISODES');
  const [gatewayRate, bareRate] = rounds.map((values) => [...values].sort((a, b) => a - b)[1]!);
  report('unlock', ['gateway', gatewayRate!], ['bare SQL transaction', bareRate!], 0.3);
}
