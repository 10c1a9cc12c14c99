// Baseline: node:http answering the JSON GET /api/user answers, with nothing else.
import http from 'node:http';

const body = JSON.stringify({ code: 200, message: 'ok', data: { id: 'u1', kind: 'guest', email: null, coins: 0, vip: null } });
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'x-user-token': 't'.repeat(43) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  console.log(`listening http://127.0.0.1:${address.port}/api/user`);
});
process.on('SIGTERM', () => process.exit(0));
