import fs from 'node:fs';
import path from 'node:path';
import { FileStore } from '@tus/file-store';
import { Server, type Upload } from '@tus/server';
import { Router, type Request } from 'express';
import { z } from 'zod';
import { adminCallOf, AppError, requireRole } from '@cliffhanger/platform';
import type { CatalogAdmin } from './admin.ts';

export const UPLOADS_PATH = '/api/admin/uploads';
/** An upload not finished a day after it began is dropped, bytes and all (the tus expiration extension). */
export const UPLOAD_EXPIRY_MS = 24 * 3600_000;

const metadataSchema = z.object({
  seriesId: z.string({ message: 'Upload-Metadata needs seriesId' }).trim().min(1, 'Upload-Metadata needs seriesId').max(100),
  number: z.coerce
    .number({ message: 'number must be a whole number from 1 to 10000' })
    .int('number must be a whole number from 1 to 10000')
    .min(1, 'number must be a whole number from 1 to 10000')
    .max(10_000, 'number must be a whole number from 1 to 10000'),
  title: z.string().trim().max(200, 'title is at most 200 characters').optional(),
});
type EpisodeMetadata = z.infer<typeof metadataSchema>;

/** tus answers errors as a status and a plain-text body, not the API's envelope: what tus clients show. */
const tusError = (status_code: number, message: string) => ({ status_code, body: `${message}\n` });

function tusErrorOf(error: unknown): { status_code: number; body: string } {
  if (error instanceof AppError) return tusError(error.code, error.message);
  throw error;
}

function metadataOf(upload: Upload): EpisodeMetadata {
  // An absent `number` would parse as 0 through coerce; say what is missing instead.
  const given = { ...upload.metadata, number: upload.metadata?.number ?? undefined };
  const parsed = metadataSchema.safeParse(given);
  if (!parsed.success) throw tusError(400, parsed.error.issues[0]!.message);
  return parsed.data;
}

/** The Express request under tus's own (srvx) request: it carries the request context the event needs. */
const expressRequestOf = (req: { runtime?: { node?: { req: unknown } } }) => req.runtime?.node?.req as Request;

/**
 * Resumable episode uploads (tus 1.0.0: creation, termination, expiration): the bytes land under
 * `dir` (DATA_DIR/incoming/tus); when the last one arrives the episode is added exactly as a
 * whole-file upload adds it (admin.addEpisode), under the tus upload's id, so a finish that runs
 * twice adds it once. One process owns an upload's bytes and its lock: services running apart share
 * the directory on one volume and send one upload to one catalog process at a time.
 */
export function resumableUploads(admin: CatalogAdmin, options: { adminToken: string | undefined; dir: string; maxUploadBytes: number }) {
  const store = new FileStore({ directory: options.dir, expirationPeriodInMilliseconds: UPLOAD_EXPIRY_MS });
  const tus = new Server({
    path: UPLOADS_PATH,
    datastore: store,
    maxSize: options.maxUploadBytes,
    // Behind the gateway the service sees its own address: a path is right wherever the client is.
    relativeLocation: true,
    disableTerminationForFinishedUploads: true,
    async onUploadCreate(_req, upload) {
      const { seriesId, number } = metadataOf(upload);
      await admin.checkEpisodeSlot(seriesId, number).catch((error: unknown) => {
        throw tusErrorOf(error);
      });
      return {};
    },
    async onUploadFinish(req, upload) {
      const { seriesId, number, title } = metadataOf(upload);
      const file = path.join(options.dir, upload.id);
      const request = expressRequestOf(req);
      const episode = await admin
        .addEpisode(request.context, seriesId, { file, number, uploadId: upload.id, ...(title ? { title } : {}) }, adminCallOf(request))
        .catch((error: unknown) => {
          throw tusErrorOf(error);
        });
      // The source is in media storage now; a retried last PATCH then answers 404, the episode stays.
      await store.remove(upload.id).catch(() => fs.promises.rm(file, { force: true }));
      return { headers: { 'Episode-Id': episode.id } };
    },
  });

  const guard = requireRole(options.adminToken, 'operator');
  const router = Router();
  // The admin guard's refusal in tus's form: a real 401 or 403 status, which tus clients act on
  // (the API's envelope answers HTTP 200 with the code inside).
  router.use(UPLOADS_PATH, (req, res, next) => {
    try {
      guard(req, res, next);
    } catch (error) {
      const { status_code, body } = tusErrorOf(error);
      res.status(status_code).set('tus-resumable', '1.0.0').type('text/plain').send(body);
    }
  });
  // GET would read an upload back: not part of the call.
  router.all([UPLOADS_PATH, `${UPLOADS_PATH}/:id`], (req, res, next) => {
    if (req.method === 'GET') return next();
    tus.handle(req, res).catch(next);
  });
  return {
    router,
    /**
     * Drops unfinished uploads past their expiry; answers how many. The store makes its folder a moment
     * after it is created, and the first sweep runs at start: the folder is made here first.
     */
    removeExpired: async () => {
      await fs.promises.mkdir(options.dir, { recursive: true });
      return tus.cleanUpExpiredUploads();
    },
  };
}
