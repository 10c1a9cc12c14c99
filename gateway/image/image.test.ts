// The image as it ships, built and run for real: the repository's Dockerfile built on Docker, then
// started as the non-root user with a read-only root filesystem (a tmpfs /tmp, DATA_DIR its own
// volume), once as TARGET=all on PGlite and once as gateway, user and catalog containers on this
// machine's PostgreSQL and Redis; each plays a free episode of the demo catalog: playlist and segment.
// Skipped, saying why, only when no Docker engine answers (CI's .ci/run starts one where docker is
// installed). Where no registry can be pulled from, the base is scripts/docker-base.sh's stand-in.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The distributed case's PostgreSQL: npm test's (TEST_DATABASE_URL), else this machine's as .ci/run starts it.
process.env.TEST_DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';
const IMAGE = 'cliffhanger:image-test';
const BASE = process.env.IMAGE_TEST_NODE_IMAGE ?? 'cliffhanger-base:local';
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const docker = (args: string[]) => spawnSync('docker', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
const engine = docker(['info', '--format', '{{.ServerVersion}}']);
const noEngine = engine.error ? `no docker command (${engine.error.message})` : engine.status !== 0 ? `no Docker engine answers: ${engine.stderr.trim().split('\n').at(-1)}` : null;
if (noEngine) console.warn(`image test skipped: ${noEngine} (apt-get install -y docker.io, then start dockerd)`);

/** Runs a command to its end, its output kept for the failure message. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output.slice(-4000)}`))));
  });
}

const timings: string[] = [];
async function timed<T>(what: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await work();
  } finally {
    timings.push(`${what} ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}

const started: string[] = [];
/** Starts a container of the image as the image's own user, read-only but for /tmp and the /data volume, on the host's network. */
async function container(name: string, env: Record<string, string>): Promise<string> {
  const id = `cliffhanger-image-test-${name}-${process.pid}`;
  const settings = Object.entries({ HOST: '127.0.0.1', LOG_LEVEL: 'warn', SMTP_URL: 'smtp://127.0.0.1:2525', PUBLIC_URL: 'http://127.0.0.1:18080', PAYMENT_PROVIDER: 'sandbox', ...env });
  await run('docker', ['run', '-d', '--rm', '--name', id, '--network', 'host', '--read-only', '--tmpfs', '/tmp', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', ...settings.flatMap(([key, value]) => ['-e', `${key}=${value}`]), IMAGE]);
  started.push(id);
  return id;
}

/** Waits for /readyz (the demo catalog's first episode transcoded), with the container's log on failure. */
async function ready(id: string, url: string, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const answer = await fetch(`${url}/readyz`);
      if (answer.ok) return;
      last = `${answer.status} ${await answer.text()}`;
    } catch (error) {
      last = (error as Error).message;
    }
    if (docker(['inspect', '-f', '{{.State.Running}}', id]).stdout.trim() !== 'true') break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`${id} not ready at ${url} (${last}):\n${docker(['logs', '--tail', '60', id]).stderr}${docker(['logs', '--tail', '60', id]).stdout}`);
}

/** A guest finds a free, ready episode of the demo catalog, gets its grant, and fetches the playlists and one segment. */
async function playAnEpisode(url: string) {
  const guest = await fetch(`${url}/api/user`);
  const token = guest.headers.get('x-user-token')!;
  expect(token).toBeTruthy();
  const call = async (pathAndQuery: string) => {
    const answer = await fetch(`${url}${pathAndQuery}`, { headers: { 'x-user-token': token } });
    return { status: answer.status, body: (await answer.json()) as { code: number; data: any } };
  };
  const cards = (await call('/api/homepage/query?sectionId=new&page=1&size=50')).body.data;
  const list: { id: string }[] = Array.isArray(cards) ? cards : (cards.list ?? cards.items ?? []);
  let episodeId: string | undefined;
  for (const card of list) {
    const video = (await call(`/api/video?id=${card.id}`)).body.data;
    episodeId = video.episodes.find((episode: { locked: boolean; ready: boolean }) => !episode.locked && episode.ready)?.id;
    if (episodeId) break;
  }
  expect(episodeId, 'a free episode ready to play').toBeTruthy();
  const episode = await call(`/api/video/episode?id=${episodeId}`);
  expect(episode.status).toBe(200);
  const master = new URL(episode.body.data.playback.url, url);
  const get = async (at: URL) => {
    const answer = await fetch(at);
    expect(answer.status, at.pathname).toBe(200);
    return Buffer.from(await answer.arrayBuffer());
  };
  const firstUri = (playlist: string) => playlist.split('\n').find((line) => line.trim() && !line.startsWith('#'))!.trim();
  const masterText = (await get(master)).toString();
  expect(masterText).toContain('#EXTM3U');
  const variant = new URL(firstUri(masterText), master);
  const variantText = (await get(variant)).toString();
  expect(variantText).toContain('#EXTINF');
  const segment = await get(new URL(firstUri(variantText), variant));
  expect(segment.length).toBeGreaterThan(1000);
  return segment.length;
}

describe.skipIf(noEngine !== null)('the image, built and run read-only as its own user', () => {
  let dropDatabase = async () => {};

  beforeAll(async () => {
    const baseMissing = docker(['image', 'inspect', BASE]).status !== 0;
    if (baseMissing && BASE === 'cliffhanger-base:local') await timed('base image (scripts/docker-base.sh)', () => run('bash', ['scripts/docker-base.sh', BASE]));
    // The classic builder where the engine's client has no buildx; docker layers cache either way.
    const buildx = docker(['buildx', 'version']).status === 0;
    await timed('image build', () =>
      run('docker', ['build', '--network', 'host', '--build-arg', `NODE_IMAGE=${BASE}`, '-t', IMAGE, '.'], buildx ? {} : { DOCKER_BUILDKIT: '0' }),
    );
  }, 15 * 60_000);

  afterAll(async () => {
    for (const id of started) docker(['rm', '-f', '-v', id]);
    await dropDatabase();
    console.log(`image test: ${timings.join(', ')}`);
  });

  it('runs as the node user on a read-only root', async () => {
    const whoami = await run('docker', ['run', '--rm', '--read-only', '--tmpfs', '/tmp', '--entrypoint', 'sh', IMAGE, '-c', 'id -u; node --version; touch /app/x 2>&1 || true']);
    const [uid, version] = whoami.trim().split('\n');
    expect(uid).not.toBe('0');
    expect(Number(version!.slice(1).split('.')[0])).toBeGreaterThanOrEqual(20);
    expect(whoami).toMatch(/Read-only file system/);
  });

  it('plays an episode as TARGET=all on PGlite', async () => {
    const id = await container('all', { TARGET: 'all', PORT: '18080' });
    await timed('TARGET=all ready', () => ready(id, 'http://127.0.0.1:18080', 4 * 60_000));
    expect(await timed('TARGET=all play', () => playAnEpisode('http://127.0.0.1:18080'))).toBeGreaterThan(0);
    docker(['rm', '-f', '-v', id]);
  }, 6 * 60_000);

  it('plays an episode through gateway, user and catalog containers on PostgreSQL and Redis', async () => {
    // Imported here, once TEST_DATABASE_URL is settled: the testing kit reads it as it loads.
    const { createScratchDatabase } = await import('@cliffhanger/platform/testing');
    const scratch = await createScratchDatabase();
    dropDatabase = scratch.drop;
    const shared = {
      DATABASE_URL: scratch.url,
      REDIS_URL: redisUrl,
      REDIS_PREFIX: `image-test-${process.pid}`,
      INTERNAL_TOKEN: randomBytes(18).toString('base64url'),
      MEDIA_SECRET: randomBytes(32).toString('base64url'),
      USER_SERVICE_URL: 'http://127.0.0.1:18082',
      CATALOG_SERVICE_URL: 'http://127.0.0.1:18083',
      UNLOCK_SERVICE_URL: 'http://127.0.0.1:18083',
      PAYMENT_SERVICE_URL: 'http://127.0.0.1:18083',
      ANALYTICS_SERVICE_URL: 'http://127.0.0.1:18083',
      TRANSCODER_SERVICE_URL: 'http://127.0.0.1:18083',
    };
    // The catalog's container carries the modules the gateway and user do not (the demo seeds through the catalog).
    const catalog = await container('catalog', { ...shared, TARGET: 'catalog,demo,unlock,payment,analytics,transcoder', PORT: '18083' });
    const user = await container('user', { ...shared, TARGET: 'user', PORT: '18082', DEMO: '0' });
    const gateway = await container('gateway', { ...shared, TARGET: 'gateway', PORT: '18081', DEMO: '0', PUBLIC_URL: 'http://127.0.0.1:18081' });
    await timed('apart ready', async () => {
      await ready(catalog, 'http://127.0.0.1:18083', 4 * 60_000);
      await ready(user, 'http://127.0.0.1:18082', 60_000);
      await ready(gateway, 'http://127.0.0.1:18081', 60_000);
    });
    expect(await timed('apart play', () => playAnEpisode('http://127.0.0.1:18081'))).toBeGreaterThan(0);
  }, 6 * 60_000);
});
