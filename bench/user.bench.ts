// GET /api/user with a valid token through the whole gateway, against bare node:http and bare
// Express answering the same JSON, all in this run on this machine.
import { report, requestsPerSecond, startServer } from './lib.ts';

const bareHttp = await startServer('servers/bare-http.ts');
const bareHttpRps = await requestsPerSecond(bareHttp.url);
await bareHttp.stop();

const bareExpress = await startServer('servers/bare-express.ts');
const bareExpressRps = await requestsPerSecond(bareExpress.url);
await bareExpress.stop();

const gateway = await startServer('servers/gateway.ts');
const guest = await fetch(`${gateway.url}/api/user`);
const token = guest.headers.get('x-user-token')!;
const gatewayRps = await requestsPerSecond(`${gateway.url}/api/user`, { 'x-user-token': token });
await gateway.stop();

report('user-hot-read', ['gateway', gatewayRps], ['bare express', bareExpressRps], 0.5);
report('user-hot-read', ['gateway', gatewayRps], ['bare node:http', bareHttpRps], 0.25);
