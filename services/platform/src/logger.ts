import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON lines in production and when piped; readable colours in a terminal. */
export function createLogger(level: string, name = 'cliffhanger'): Logger {
  const pretty = process.stdout.isTTY && process.env.NODE_ENV !== 'production';
  return pino({
    name,
    level,
    redact: ['req.headers["x-user-token"]', 'req.headers.authorization', 'password', 'token'],
    ...(pretty ? { transport: { target: 'pino-pretty', options: { colorize: true } } } : {}),
  });
}
