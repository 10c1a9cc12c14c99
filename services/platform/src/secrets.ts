import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, type Config } from './config.ts';

/** As config.ts asks of a MEDIA_SECRET from the environment. */
const MIN_SECRET_LENGTH = 32;

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
  const secret = readSecretFile(file) ?? makeSecretFile(file);
  // An empty or short file (one a crash left half-made) would sign grants anyone can forge: refused,
  // and left for the operator to see, rather than replaced under a process that may have read it.
  if (secret.length < MIN_SECRET_LENGTH) {
    throw new ConfigError(
      `config: ${name}: ${file} holds ${secret.length} characters, fewer than ${MIN_SECRET_LENGTH}: delete it to have a new one made (playback links signed with the old one stop working), or set ${name}`,
    );
  }
  return secret;
}

function readSecretFile(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Writes a new secret whole into a temp file, then links it under its name: the name appears with
 * its whole content or not at all, whatever crash comes between. A link, not a rename, because it
 * never replaces: of processes sharing DATA_DIR that start together, the first to link wins and the
 * others read its secret.
 */
function makeSecretFile(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const secret = randomBytes(32).toString('base64url');
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = fs.openSync(temp, 'wx', 0o600);
    try {
      fs.writeFileSync(fd, secret);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    try {
      fs.linkSync(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return readSecretFile(file) ?? '';
    }
    return secret;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}
