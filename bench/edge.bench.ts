// One 700 KB HLS segment through the media edge (edge/: nginx, the playback grant checked by njs on
// every request) against bare nginx serving the same file from the same disk: the same nginx binary,
// the same sendfile settings, a config without the njs check. Interleaved rounds (bench/lib.ts).
// Needs nginx and its JavaScript module (apt-get install -y nginx-light libnginx-mod-http-js);
// without them it says so and exits. EDGE_BENCH_SECONDS (2) per round, EDGE_BENCH_ROUNDS (3),
// EDGE_BENCH_SEGMENT_KB (700) scale it.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { issuePlaybackGrant } from '@cliffhanger/catalog';
import { eventually, freePort, tempDir } from '@cliffhanger/platform/testing';
import { edgeMissing, startEdge } from '../services/catalog/test/edge.ts';
import { report, requestsPerSecond } from './lib.ts';

const EPISODE = 'bench-episode';
const SEGMENT_KEY = `episodes/${EPISODE}/hls/480p/seg_000.ts`;
const SECRET = randomBytes(32).toString('hex');
const seconds = Math.max(1, Number(process.env.EDGE_BENCH_SECONDS ?? 2));
const rounds = Math.max(1, Number(process.env.EDGE_BENCH_ROUNDS ?? 3));
const segmentKb = Math.max(1, Number(process.env.EDGE_BENCH_SEGMENT_KB ?? 700));

/** Bare nginx on a free loopback port: the ladder from disk by the same path, no grant checked. */
async function startBareNginx(mediaRoot: string): Promise<{ url: string; close(): Promise<void> }> {
  const dir = tempDir('bench-bare-nginx-');
  const port = await freePort();
  fs.writeFileSync(
    path.join(dir, 'nginx.conf'),
    `worker_processes auto;
pid ${dir}/nginx.pid;
error_log stderr warn;
events { worker_connections 1024; }
http {
  access_log off;
  server_tokens off;
  sendfile on;
  tcp_nopush on;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  types { video/mp2t ts; }
  server {
    listen 127.0.0.1:${port};
    location = /healthz { return 200 'ok'; }
    location ~ ^/media/g/[^/]+/(?<key>episodes/.+)$ {
      root ${mediaRoot};
      try_files /$key =404;
    }
  }
}
`,
  );
  fs.chmodSync(dir, 0o755);
  const child: ChildProcess = spawn('nginx', ['-e', 'stderr', '-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'], {
    env: { PATH: process.env.PATH },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const close = async () => {
    if (child.exitCode === null) child.kill('SIGQUIT');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error('bare nginx exited');
        return fetch(`${url}/healthz`).then((answer) => answer.ok, () => false);
      },
      20_000,
      'bare nginx to answer',
    );
  } catch (error) {
    await close();
    throw error;
  }
  return { url, close };
}

const missing = edgeMissing();
if (missing) {
  console.log(`edge segments: skipped (${missing})`);
} else {
  const dataDir = tempDir('bench-edge-');
  const mediaRoot = path.join(dataDir, 'media');
  const file = path.join(mediaRoot, SEGMENT_KEY);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, randomBytes(segmentKb * 1024));
  const grant = issuePlaybackGrant(SECRET, EPISODE).token;
  const segmentPath = `/media/g/${grant}/${SEGMENT_KEY}`;
  // The playlists the catalog renders are not asked for: the origin is never called.
  const edge = await startEdge({ mediaRoot, origin: 'http://127.0.0.1:9', mediaSecret: SECRET });
  try {
    const bare = await startBareNginx(mediaRoot);
    try {
      const sides = [`${edge.url}${segmentPath}`, `${bare.url}${segmentPath}`];
      // A forged grant must be refused, or the edge measured would not be checking anything.
      const forged = await fetch(`${edge.url}/media/g/${grant.slice(0, -2)}xx/${SEGMENT_KEY}`);
      if (forged.status !== 403) throw new Error(`the edge answered a forged grant with ${forged.status}`);
      const measured: number[][] = sides.map(() => []);
      for (let round = 0; round < rounds; round++) for (const [i, url] of sides.entries()) measured[i]!.push(await requestsPerSecond(url, {}, seconds));
      const [edgeRps, bareRps] = measured.map((values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!);
      report('edge segments', ['edge', edgeRps!], ['bare nginx', bareRps!], 0.9);
    } finally {
      await bare.close();
    }
  } finally {
    await edge.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
