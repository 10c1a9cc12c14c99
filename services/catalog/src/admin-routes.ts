import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Router, type Request } from 'express';
import { z } from 'zod';
import { adminCallOf, Invalid, ok, pagingSchema, parseInput, requireRole, requiredText } from '@cliffhanger/platform';
import type { CatalogAdmin } from './admin.ts';
import { MAX_SUBTITLE_BYTES, SUBTITLE_LANGS } from './subtitles.ts';

const MAX_COVER_BYTES = 10 * 1024 ** 2;

// PostgreSQL text cannot hold NUL, and no other control character belongs in a name: refused (422),
// never left for the database to fail on. A description keeps its line breaks and tabs.
const ONE_LINE = /^[^\u0000-\u001f\u007f]*$/;
const TEXT = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/;
const wholeNumber = (name: string, max: number) => {
  const message = `${name} must be a whole number from 0 to ${max}`;
  return z.number({ message }).int(message).min(0, message).max(max, message);
};
const seriesFields = {
  title: requiredText('Please enter a title', 200).regex(ONE_LINE, 'The title cannot hold control characters'),
  description: z.string({ message: 'description must be text' }).max(5000, 'description is at most 5000 characters').regex(TEXT, 'The description cannot hold control characters'),
  tags: z
    .array(requiredText('Please enter a tag name', 50).regex(ONE_LINE, 'A tag cannot hold control characters'), { message: 'tags must be a list of names' })
    .max(20, 'At most 20 tags'),
  freeEpisodes: wholeNumber('freeEpisodes', 10_000),
  priceCoins: wholeNumber('priceCoins', 1_000_000),
  hidden: z.boolean({ message: 'hidden must be true or false' }),
};
const optionalSeriesFields = z.object(seriesFields).partial();
const seriesBody = optionalSeriesFields.extend({ title: seriesFields.title });
// Every field of a series but its id; a field left out stays as it is, and an unknown one is refused.
const seriesChanges = optionalSeriesFields
  .strict()
  .refine((changes) => Object.keys(changes).length > 0, 'Send at least one field to change');
const listQuery = pagingSchema.extend({
  query: z.string().trim().max(200, 'query is at most 200 characters').regex(ONE_LINE, 'query cannot hold control characters').optional(),
  tag: z.string().trim().min(1, 'tag is a category id').max(100, 'tag is a category id').regex(ONE_LINE, 'tag is a category id').optional(),
  visibility: z.enum(['published', 'hidden'], { message: 'visibility is published or hidden' }).optional(),
  failed: z.enum(['true', 'false'], { message: 'failed is true or false' }).optional(),
});
const orderBody = z.object({
  episodeIds: z.array(requiredText('Please choose an episode', 100), { message: 'episodeIds must be the episode ids in their new order' }).max(10_000),
});
const episodeQuery = z.object({
  number: z.coerce.number().int().min(1).max(10_000).optional(),
  title: z.string().trim().max(200).optional(),
  // Accepted, and not kept: the stored copy has a neutral name (see addEpisode).
  fileName: z.string().max(255).optional(),
});
const sectionBody = z.object({
  title: requiredText('Please enter a title', 100),
  kind: z.enum(['carousel', 'section']).default('section'),
  position: z.number().int().min(0).max(10_000),
  videoIds: z.array(requiredText('Please choose a video', 100)).max(100),
});
const idParam = z.object({ id: requiredText('Please choose one', 100).regex(ONE_LINE, 'Please choose one') });
const subtitleParams = idParam.extend({
  lang: z.enum(SUBTITLE_LANGS, { message: `Subtitles are in one of the interface languages: ${SUBTITLE_LANGS.join(', ')}` }),
});

const tooLarge = () => Object.assign(new Error('request entity too large'), { type: 'entity.too.large', status: 413 });

/** Streams a raw request body to a new file under `dir`, refusing more than `limit` bytes. */
async function receiveFile(req: Request, dir: string, limit: number): Promise<string> {
  if (Number(req.get('content-length') ?? 0) > limit) throw tooLarge();
  // The gateway has already read JSON bodies; a file must come as the body itself.
  if (req.is('application/json') || req.readableEnded) throw new Invalid({ file: 'Send the file itself as the request body' });
  await fs.promises.mkdir(dir, { recursive: true });
  const file = path.join(dir, randomUUID());
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      done(received > limit ? tooLarge() : null, chunk);
    },
  });
  try {
    await pipeline(req, counter, fs.createWriteStream(file));
    if (received === 0) throw new Invalid({ file: 'The file is empty' });
    return file;
  } catch (error) {
    await fs.promises.rm(file, { force: true });
    throw error;
  }
}

async function withUploadedFile<T>(req: Request, dir: string, limit: number, use: (file: string) => Promise<T>): Promise<T> {
  const file = await receiveFile(req, dir, limit);
  try {
    return await use(file);
  } finally {
    await fs.promises.rm(file, { force: true });
  }
}

/**
 * The operator's calls. Files travel as the raw request body (any non-JSON content type), so a
 * multi-gigabyte episode streams to disk instead of through memory.
 */
export function adminRoutes(admin: CatalogAdmin, options: { adminToken: string | undefined; incomingDir: string; maxUploadBytes: number }): Router {
  const router = Router();
  router.use('/api/admin', requireRole(options.adminToken, 'operator'));

  router.get('/api/admin/videos', async (req, res) => {
    const { page, size, query, tag, visibility, failed } = parseInput(listQuery, req.query);
    const filter = {
      ...(query ? { query } : {}),
      ...(tag ? { tagId: tag } : {}),
      ...(visibility ? { hidden: visibility === 'hidden' } : {}),
      ...(failed ? { failed: failed === 'true' } : {}),
    };
    res.json(ok(await admin.list(filter, page, size)));
  });
  router.post('/api/admin/videos', async (req, res) => {
    res.json(ok(await admin.createSeries(parseInput(seriesBody, req.body), adminCallOf(req))));
  });
  router.get('/api/admin/videos/:id', async (req, res) => {
    const { id } = parseInput(idParam, req.params);
    res.json(ok({ ...(await admin.series(id)), episodes: await admin.episodesOf(id) }));
  });
  router.patch('/api/admin/videos/:id', async (req, res) => {
    const { id } = parseInput(idParam, req.params);
    res.json(ok(await admin.updateSeries(id, parseInput(seriesChanges, req.body), adminCallOf(req))));
  });
  router.put('/api/admin/videos/:id/episodes/order', async (req, res) => {
    const { id } = parseInput(idParam, req.params);
    res.json(ok(await admin.reorderEpisodes(id, parseInput(orderBody, req.body).episodeIds, adminCallOf(req))));
  });
  router.put('/api/admin/videos/:id/cover', async (req, res) => {
    const { id } = parseInput(idParam, req.params);
    res.json(ok(await withUploadedFile(req, options.incomingDir, MAX_COVER_BYTES, (file) => admin.setCover(id, file, adminCallOf(req)))));
  });
  router.post('/api/admin/videos/:id/episodes', async (req, res) => {
    const { id } = parseInput(idParam, req.params);
    const { number, title } = parseInput(episodeQuery, req.query);
    const episode = await withUploadedFile(req, options.incomingDir, options.maxUploadBytes, (file) =>
      admin.addEpisode(req.context, id, { file, number, title }, adminCallOf(req)),
    );
    res.json(ok(episode));
  });
  router.get('/api/admin/episodes/:id', async (req, res) => {
    res.json(ok(await admin.episode(parseInput(idParam, req.params).id)));
  });
  router.post('/api/admin/episodes/:id/retranscode', async (req, res) => {
    res.json(ok(await admin.retranscode(parseInput(idParam, req.params).id, adminCallOf(req))));
  });
  router.get('/api/admin/episodes/:id/subtitles', async (req, res) => {
    res.json(ok(await admin.subtitlesOf(parseInput(idParam, req.params).id)));
  });
  router.put('/api/admin/episodes/:id/subtitles/:lang', async (req, res) => {
    const { id, lang } = parseInput(subtitleParams, req.params);
    res.json(ok(await withUploadedFile(req, options.incomingDir, MAX_SUBTITLE_BYTES, (file) => admin.putSubtitles(id, lang, file, adminCallOf(req)))));
  });
  router.delete('/api/admin/episodes/:id/subtitles/:lang', async (req, res) => {
    const { id, lang } = parseInput(subtitleParams, req.params);
    await admin.removeSubtitles(id, lang, adminCallOf(req));
    res.json(ok(null));
  });
  router.put('/api/admin/sections/:id', async (req, res) => {
    const { id } = parseInput(idParam, req.params);
    await admin.putSection(id, parseInput(sectionBody, req.body), adminCallOf(req));
    res.json(ok(null));
  });

  return router;
}
