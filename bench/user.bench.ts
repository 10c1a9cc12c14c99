// GET /api/user with a valid token through the whole gateway, against bare node:http and bare
// Express answering the same JSON, all in this run on this machine.
import { interleaved, report, startServer } from './lib.ts';

const [bareHttp, bareExpress, gateway] = await Promise.all([
  startServer('servers/bare-http.ts'),
  startServer('servers/bare-express.ts'),
  startServer('servers/gateway.ts'),
]);
const token = (await fetch(`${gateway.url}/api/user`)).headers.get('x-user-token')!;
const [gatewayRps, bareExpressRps, bareHttpRps] = await interleaved([
  { url: `${gateway.url}/api/user`, headers: { 'x-user-token': token } },
  { url: bareExpress.url },
  { url: bareHttp.url },
]);
await Promise.all([bareHttp.stop(), bareExpress.stop(), gateway.stop()]);

report('user-hot-read', ['gateway', gatewayRps!], ['bare express', bareExpressRps!], 0.5);
report('user-hot-read', ['gateway', gatewayRps!], ['bare node:http', bareHttpRps!], null);
