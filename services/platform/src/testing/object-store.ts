/// <reference path="./s3rver.d.ts" />
import type { AddressInfo } from 'node:net';
import S3rver from 's3rver';
import { tempDir } from './fixtures.ts';

export interface ObjectStore {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  bucket: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** The settings that point the site at this bucket (S3_BUCKET, S3_ENDPOINT and the keys). */
  env: Record<string, string>;
  close: () => Promise<void>;
}

/**
 * An S3-protocol object store on loopback (s3rver, on a fresh directory) with one bucket: what the
 * site's media and lake storage speak to in place of S3 or MinIO, which cannot be reached here.
 */
export async function startObjectStore(bucket = 'cliffhanger-media'): Promise<ObjectStore> {
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: tempDir('s3rver-'), configureBuckets: [{ name: bucket }] });
  const { port } = (await server.run()) as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  return {
    endpoint,
    bucket,
    credentials,
    env: { S3_BUCKET: bucket, S3_ENDPOINT: endpoint, S3_ACCESS_KEY_ID: credentials.accessKeyId, S3_SECRET_ACCESS_KEY: credentials.secretAccessKey },
    close: () => server.close(),
  };
}
