import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { checkKey, type MediaStorage } from './storage.ts';

export interface S3StorageOptions {
  bucket: string;
  /** Keys are stored under this prefix (`media/`), so one bucket may hold other things too. */
  prefix?: string;
  /** An S3-compatible endpoint (MinIO, Ceph, R2...); AWS itself when unset. */
  endpoint?: string;
  region: string;
  /** Static credentials; when unset, the SDK's chain (environment, web identity, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** `bucket` in the path instead of the host name: what most S3-compatible servers want. */
  forcePathStyle?: boolean;
}

const CONTENT_TYPES: Record<string, string> = {
  '.m3u8': 'application/vnd.apple.mpegurl',
  '.ts': 'video/mp2t',
  '.m4s': 'video/iso.segment',
  '.mp4': 'video/mp4',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.vtt': 'text/vtt',
};
const contentTypeOf = (key: string) => CONTENT_TYPES[path.extname(key).toLowerCase()] ?? 'application/octet-stream';

const notFound = (error: unknown) =>
  error instanceof S3ServiceException && (error.name === 'NotFound' || error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404);

/**
 * Media in an S3-compatible bucket, so the transcoder that writes a ladder and the processes that
 * serve it need not share a disk. Each object is written whole by one PUT (nothing half-written
 * is ever visible), so there is no staging to sweep; a replaced ladder is uploaded with its master
 * playlist last and then stripped of the files the new one no longer has.
 */
export function createS3Storage(options: S3StorageOptions): MediaStorage {
  const client = new S3Client({
    region: options.region,
    ...(options.endpoint && { endpoint: options.endpoint }),
    ...(options.credentials && { credentials: options.credentials }),
    forcePathStyle: options.forcePathStyle ?? Boolean(options.endpoint),
    // Checksums only where S3 requires them: S3-compatible servers differ on the newer trailing ones.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = options.bucket;
  const root = options.prefix ? `${options.prefix.replace(/\/+$/, '')}/` : '';
  const keyOf = (key: string) => root + checkKey(key);

  async function putFile(key: string, file: string): Promise<void> {
    const { size } = await fs.promises.stat(file);
    await client.send(new PutObjectCommand({ Bucket, Key: keyOf(key), Body: fs.createReadStream(file), ContentLength: size, ContentType: contentTypeOf(key) }));
  }

  /** Every object under `prefix/`, its key as stored and its size, a page of the listing at a time. */
  async function objectsUnder(prefix: string): Promise<{ key: string; size: number }[]> {
    const objects: { key: string; size: number }[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix: `${keyOf(prefix)}/`, ContinuationToken }));
      for (const object of page.Contents ?? []) if (object.Key) objects.push({ key: object.Key, size: object.Size ?? 0 });
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return objects;
  }

  /** Every key under `prefix/`, as stored. */
  const keysUnder = async (prefix: string): Promise<string[]> => (await objectsUnder(prefix)).map((object) => object.key);

  async function removeKeys(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      const answer = await client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }));
      if (answer.Errors?.length) throw new Error(`S3 delete failed for ${answer.Errors.length} objects, e.g. ${answer.Errors[0]!.Key}: ${answer.Errors[0]!.Message}`);
    }
  }

  return {
    kind: 's3',
    putFile,
    async putDirectory(prefix, dir) {
      const files = (await fs.promises.readdir(dir, { recursive: true, withFileTypes: true }))
        .filter((entry) => entry.isFile())
        .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
      const before = new Set(await keysUnder(prefix));
      // Playlists after the segments they list, the master last: a player never finds a name not yet there.
      const rank = (file: string) => (file === 'master.m3u8' ? 2 : file.endsWith('.m3u8') ? 1 : 0);
      const ordered = [...files].sort((a, b) => rank(a) - rank(b));
      const uploadsAtOnce = 8;
      for (let rung = 0; rung <= 2; rung++) {
        const batch = ordered.filter((file) => rank(file) === rung);
        for (let i = 0; i < batch.length; i += uploadsAtOnce)
          await Promise.all(batch.slice(i, i + uploadsAtOnce).map((file) => putFile(`${prefix}/${file}`, path.join(dir, file))));
      }
      for (const file of files) before.delete(keyOf(`${prefix}/${file}`));
      await removeKeys([...before]);
    },
    async put(key, body) {
      await client.send(new PutObjectCommand({ Bucket, Key: keyOf(key), Body: body, ContentType: contentTypeOf(key) }));
    },
    async stat(key) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket, Key: keyOf(key) }));
        return { size: head.ContentLength ?? 0, modifiedAt: head.LastModified ?? new Date(0) };
      } catch (error) {
        if (notFound(error)) return null;
        throw error;
      }
    },
    read(key, range) {
      // The port hands out a stream at once; the GET starts behind it and its failure is the stream's.
      const out = new PassThrough();
      const Key = keyOf(key);
      client
        .send(new GetObjectCommand({ Bucket, Key, ...(range && { Range: `bytes=${range.start}-${range.end}` }) }), { abortSignal: abortOnClose(out) })
        .then((answer) => {
          const body = answer.Body as Readable;
          body.on('error', (error) => out.destroy(error));
          body.pipe(out);
        })
        .catch((error: unknown) => out.destroy(error as Error));
      return out;
    },
    async remove(prefix) {
      const keys = await keysUnder(prefix);
      const own = keyOf(prefix);
      await removeKeys([own, ...keys.filter((key) => key !== own)]);
    },
    async list(prefix) {
      return (await objectsUnder(prefix)).map(({ key, size }) => ({ key: key.slice(root.length), size }));
    },
    async removeStaging() {
      // Nothing is staged: a PUT is whole or absent. Abandoned multipart uploads are the bucket's
      // lifecycle rule's to abort (AbortIncompleteMultipartUpload).
      return 0;
    },
  };
}

/** Aborts the GET when its reader goes away early (a player seeking past a segment). */
function abortOnClose(stream: PassThrough): AbortSignal {
  const controller = new AbortController();
  stream.once('close', () => controller.abort());
  return controller.signal;
}
