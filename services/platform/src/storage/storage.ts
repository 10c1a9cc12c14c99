import type { Readable } from 'node:stream';

export interface StoredObject {
  size: number;
  modifiedAt: Date;
}

/**
 * Media storage port: keys are slash-separated paths such as `episodes/ep1/hls/master.m3u8`, and
 * what goes in or comes out is a file's content or a stream, never a place on some machine's disk:
 * the transcoder and the processes serving media may run on different machines (S3).
 */
export interface MediaStorage {
  readonly kind: 'disk' | 's3';
  /** Copies a local file in under `key`, replacing any object there. */
  putFile(key: string, file: string): Promise<void>;
  /** Moves a whole local directory in under `prefix`, replacing what was there as one step. */
  putDirectory(prefix: string, dir: string): Promise<void>;
  put(key: string, body: Buffer | string): Promise<void>;
  stat(key: string): Promise<StoredObject | null>;
  /** The object's bytes, or the inclusive byte range of them; a missing key fails the stream. */
  read(key: string, range?: { start: number; end: number }): Readable;
  remove(prefix: string): Promise<void>;
  /** Every object under `prefix/`, by key (as `read` takes it) and size, in no given order. */
  list(prefix: string): Promise<{ key: string; size: number }[]>;
  /**
   * Removes what writes that died part-way left (a half-copied file or ladder, a replaced ladder
   * not yet deleted) once older than `olderThanMs`; answers how many. Younger ones may be writes in
   * progress in another process sharing the storage.
   */
  removeStaging(olderThanMs: number): Promise<number>;
}

/** Rejects keys that could escape the storage root. */
export function checkKey(key: string): string {
  if (!key || key.startsWith('/') || key.split('/').some((part) => part === '' || part === '.' || part === '..' || part.includes('\\')))
    throw new Error(`invalid storage key: ${key}`);
  return key;
}
