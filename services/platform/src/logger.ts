import { pino, type DestinationStream, type Logger } from 'pino';
import { traceFields } from './observability/tracing.ts';

export type { Logger };

/**
 * JSON lines in production, when piped and to a `destination` of its own; readable colours in a
 * terminal. A line written inside a traced request or consumer carries its `trace_id` and `span_id`.
 */
export function createLogger(level: string, name = 'cliffhanger', destination?: DestinationStream): Logger {
  const pretty = !destination && process.stdout.isTTY && process.env.NODE_ENV !== 'production';
  const options = {
    name,
    level,
    mixin: traceFields,
    redact: ['req.headers["x-user-token"]', 'req.headers.authorization', 'password', 'token'],
    ...(pretty ? { transport: { target: 'pino-pretty', options: { colorize: true } } } : {}),
  };
  return destination ? pino(options, destination) : pino(options);
}
