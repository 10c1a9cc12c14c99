// Exits 0 when every postgres:// and redis:// URL given answers a TCP connection within 2 s.
import net from 'node:net';

const reachable = (url) =>
  new Promise((resolve) => {
    const { hostname, port, protocol } = new URL(url);
    const socket = net.connect({ host: hostname, port: Number(port || (protocol === 'redis:' ? 6379 : 5432)) });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });

const results = await Promise.all(process.argv.slice(2).map(reachable));
process.exit(results.every(Boolean) ? 0 : 1);
