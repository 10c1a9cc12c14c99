// Baseline for the player benchmarks: one page with hls.js (the storefront's version, default
// settings) and a <video>, a button per `master` in its query (or, with `autoplay` in it, the first
// one playing at once, as the series page plays its episode). The ladders come from BENCH_MEDIA (the
// site's media folder, as any static server would send them) or, with BENCH_MEDIA_ORIGIN, from the
// site itself (its /media/ answers passed through, the very playlists the series page gets).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const mediaDir = process.env.BENCH_MEDIA;
const mediaOrigin = process.env.BENCH_MEDIA_ORIGIN;
const hlsJs = fileURLToPath(import.meta.resolve('hls.js/dist/hls.min.js'));
const page = `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>bare hls.js</title>
<style>html,body{margin:0;height:100%;background:#000}video{width:100%;height:80%;object-fit:contain}</style>
<video playsinline></video><div id="episodes"></div>
<script src="/hls.js"></script>
<script>
  const video = document.querySelector('video');
  let hls = null;
  const play = (master) => {
    if (hls) hls.destroy();
    hls = new Hls();
    hls.loadSource(master);
    hls.attachMedia(video);
    // Like the site: with sound if the browser lets it, else muted.
    video.play().catch(() => {
      video.muted = true;
      return video.play();
    }).catch(() => {});
  };
  const query = new URLSearchParams(location.search);
  for (const master of query.getAll('master')) {
    const button = document.createElement('button');
    button.textContent = master;
    button.onclick = () => play(master);
    document.getElementById('episodes').append(button);
  }
  if (query.has('autoplay') && query.get('master')) play(query.get('master'));
</script></html>`;
const types: Record<string, string> = { '.m3u8': 'application/vnd.apple.mpegurl', '.ts': 'video/mp2t', '.jpg': 'image/jpeg' };

function fromFolder(dir: string, pathname: string, res: http.ServerResponse): void {
  const file = path.join(dir, path.normalize(decodeURIComponent(pathname.replace(/^\/media\//, ''))).replace(/^(\.\.[/\\])+/, ''));
  fs.stat(file, (error, stats) => {
    if (error || !stats.isFile()) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream', 'content-length': stats.size });
    fs.createReadStream(file).pipe(res);
  });
}

function fromSite(origin: string, req: http.IncomingMessage, res: http.ServerResponse): void {
  const { host: _host, ...headers } = req.headers;
  http
    .get(new URL(req.url!, origin), { headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    })
    .on('error', () => res.writeHead(502).end());
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://bare');
  if (url.pathname === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  if (url.pathname === '/hls.js') {
    res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'max-age=3600' });
    return void fs.createReadStream(hlsJs).pipe(res);
  }
  if (!url.pathname.startsWith('/media/')) return void res.writeHead(404).end();
  if (mediaOrigin) fromSite(mediaOrigin, req, res);
  else if (mediaDir) fromFolder(mediaDir, url.pathname, res);
  else res.writeHead(404).end();
});
server.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${(server.address() as { port: number }).port}`));
process.on('SIGTERM', () => process.exit(0));
