import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { checkKey, type MediaStorage } from './storage.ts';

/** Media on local disk under `root` (DATA_DIR/media). */
export function createDiskStorage(root: string): MediaStorage {
  fs.mkdirSync(root, { recursive: true });
  const pathOf = (key: string) => path.join(root, checkKey(key));

  return {
    kind: 'disk',
    async putFile(key, file) {
      const target = pathOf(key);
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      const temporary = `${target}.${randomUUID()}.part`;
      await fs.promises.copyFile(file, temporary);
      await fs.promises.rename(temporary, target);
    },
    async putDirectory(prefix, dir) {
      const target = pathOf(prefix);
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      const staging = `${target}.${randomUUID()}.part`;
      await fs.promises.cp(dir, staging, { recursive: true });
      const old = `${target}.${randomUUID()}.old`;
      await fs.promises.rename(target, old).catch(() => {});
      await fs.promises.rename(staging, target);
      await fs.promises.rm(old, { recursive: true, force: true });
    },
    async put(key, body) {
      const target = pathOf(key);
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      const temporary = `${target}.${randomUUID()}.part`;
      await fs.promises.writeFile(temporary, body);
      await fs.promises.rename(temporary, target);
    },
    async stat(key) {
      const file = pathOf(key);
      try {
        const stats = await fs.promises.stat(file);
        return stats.isFile() ? { size: stats.size, modifiedAt: stats.mtime } : null;
      } catch {
        return null;
      }
    },
    read(key, range) {
      return fs.createReadStream(pathOf(key), range ?? {});
    },
    async remove(prefix) {
      await fs.promises.rm(pathOf(prefix), { recursive: true, force: true });
    },
    async list(prefix) {
      const dir = pathOf(prefix);
      const entries = await fs.promises.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
      const objects: { key: string; size: number }[] = [];
      for (const entry of entries) {
        const file = path.join(entry.parentPath, entry.name);
        // A write or a replaced folder in progress is not an object yet, nor what lies under one.
        if (!entry.isFile() || path.relative(dir, file).split(path.sep).some((part) => STAGING.test(part))) continue;
        const stats = await fs.promises.stat(file).catch(() => null);
        if (stats) objects.push({ key: path.relative(root, file).split(path.sep).join('/'), size: stats.size });
      }
      return objects;
    },
    async removeStaging(olderThanMs) {
      const cutoff = Date.now() - olderThanMs;
      let removed = 0;
      // Staging sits beside its key, and keys are at most `area/owner/name` deep: walking three
      // levels finds every one without reading the segments of every ladder.
      const sweep = async (dir: string, depth: number): Promise<void> => {
        const entries = await fs.promises.readdir(dir, { withFileTypes: true }).catch(() => []);
        for (const entry of entries) {
          const entryPath = path.join(dir, entry.name);
          if (STAGING.test(entry.name)) {
            const modified = (await fs.promises.stat(entryPath).catch(() => null))?.mtimeMs ?? Infinity;
            if (modified >= cutoff) continue;
            await fs.promises.rm(entryPath, { recursive: true, force: true });
            removed += 1;
          } else if (entry.isDirectory() && depth < 3) await sweep(entryPath, depth + 1);
        }
      };
      await sweep(root, 1);
      return removed;
    },
  };
}

/** Names of the temporary entries above: `<key>.<uuid>.part` while copying, `<key>.<uuid>.old` while replacing. */
const STAGING = /\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(part|old)$/;
