import path from 'node:path';
import type { Config } from '../config.ts';
import { createDiskStorage } from './disk-storage.ts';
import { createS3Storage } from './s3-storage.ts';
import type { MediaStorage } from './storage.ts';

export * from './storage.ts';
export { createDiskStorage, createS3Storage };

/** An S3-compatible bucket when S3_BUCKET is set, otherwise DATA_DIR/media on this machine's disk. */
export function createMediaStorage(config: Config): MediaStorage {
  if (!config.S3_BUCKET) return createDiskStorage(path.join(config.dataDir, 'media'));
  return s3Storage(config, config.S3_BUCKET, config.S3_PREFIX);
}

/** The lake's Parquet files (analytics): `lake/` in the S3 bucket when S3_BUCKET is set, otherwise DATA_DIR/lake. */
export function createLakeStorage(config: Config): MediaStorage {
  if (!config.S3_BUCKET) return createDiskStorage(lakeDirOf(config));
  return s3Storage(config, config.S3_BUCKET, 'lake');
}

/** Where the lake lies on this machine's disk when no bucket is set. */
export const lakeDirOf = (config: Pick<Config, 'dataDir'>): string => path.join(config.dataDir, 'lake');

function s3Storage(config: Config, bucket: string, prefix: string | undefined): MediaStorage {
  return createS3Storage({
    bucket,
    prefix,
    endpoint: config.S3_ENDPOINT,
    region: config.S3_REGION,
    credentials: config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY } : undefined,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
  });
}
