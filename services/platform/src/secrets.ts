import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, type Config } from './config.ts';

/**
 * A server secret from the environment. On a laptop (embedded, no DATABASE_URL) one is made once
 * and kept under DATA_DIR so grants survive a restart; processes that share a real database must
 * share the secret, so there it has to come from the environment.
 */
export function serverSecret(config: Config, name: 'MEDIA_SECRET'): string {
  const fromEnv = config[name];
  if (fromEnv) return fromEnv;
  if (config.DATABASE_URL && config.TARGET !== 'all') throw new ConfigError(`config: ${name}: required when services run apart`);
  const file = path.join(config.dataDir, 'secrets', `${name.toLowerCase()}`);
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const secret = randomBytes(32).toString('base64url');
    fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
    return secret;
  }
}
