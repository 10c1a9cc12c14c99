// Baseline: a bare Express app answering the JSON GET /api/user answers.
import express from 'express';

const app = express();
const data = { id: 'u1', kind: 'guest', email: null, coins: 0, vip: null };
app.get('/api/user', (_req, res) => {
  res.setHeader('x-user-token', 't'.repeat(43));
  res.json({ code: 200, message: 'ok', data });
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  console.log(`listening http://127.0.0.1:${address.port}/api/user`);
});
process.on('SIGTERM', () => process.exit(0));
