import { Router } from 'express';
import { z } from 'zod';
import { answerCacheable, Invalid, ok, pagingSchema, parseInput, PRIVATE_READ, PUBLIC_READ, requiredText } from '@cliffhanger/platform';
import type { Feed } from './feed.ts';
import { isRankingSection, type Rankings } from './rankings.ts';
import type { CardQuery, CatalogService } from './service.ts';

// Longer keywords match nothing better and only cost the database: cut, do not refuse.
export const MAX_KEYWORD_LENGTH = 100;

const idOf = (prompt: string) => z.object({ id: requiredText(prompt, 100) });
const optionalId = requiredText('Please choose a list', 100).optional();
const listQuery = pagingSchema.extend({
  keyword: z
    .string({ message: 'Please enter what you are looking for' })
    // PostgreSQL text cannot hold NUL, and no control character means anything in a search.
    .transform((keyword) => keyword.replace(/[\u0000-\u001f\u007f]/g, ' ').trim().slice(0, MAX_KEYWORD_LENGTH))
    .optional(),
  tagId: optionalId,
  sectionId: optionalId,
});

function cardQueryOf(query: z.infer<typeof listQuery>): CardQuery {
  if (query.keyword !== undefined) return { keyword: query.keyword };
  if (query.tagId) return { tagId: query.tagId };
  if (query.sectionId) return { sectionId: query.sectionId };
  throw new Invalid({ keyword: 'Please enter what you are looking for' });
}

/**
 * Browsing and watching calls of docs/api.md. The reads carry an ETag and answer 304 to a matching
 * If-None-Match; those the same for everyone may sit in a CDN (PUBLIC_READ), those that depend on
 * the viewer (a series' locks, favorite and resume point; their "continue" list) never (PRIVATE_READ).
 */
export function catalogRoutes(catalog: CatalogService, viewing: { rankings: Rankings; feed: Feed }): Router {
  const router = Router();

  router.get('/api/tag', async (req, res) => {
    answerCacheable(req, res, await catalog.tags(), PUBLIC_READ);
  });
  router.get('/api/homepage', async (req, res) => {
    answerCacheable(req, res, await catalog.homepage(), PUBLIC_READ);
  });
  router.get('/api/homepage/query', async (req, res) => {
    const query = parseInput(listQuery, req.query);
    const by = cardQueryOf(query);
    // top, trending, new and continue are kept from events (rankings.ts), not operator sections.
    if ('sectionId' in by && isRankingSection(by.sectionId)) {
      const page = await viewing.rankings.page(req.context, by.sectionId, query.page, query.size);
      answerCacheable(req, res, page, by.sectionId === 'continue' ? PRIVATE_READ : PUBLIC_READ);
    } else {
      answerCacheable(req, res, await catalog.query(by, query.page, query.size), PUBLIC_READ);
    }
  });
  router.get('/api/video', async (req, res) => {
    answerCacheable(req, res, await catalog.video(req.context, parseInput(idOf('Please choose a video'), req.query).id), PRIVATE_READ);
  });
  router.get('/api/video/episode', async (req, res) => {
    res.json(ok(await catalog.episode(req.context, parseInput(idOf('Please choose an episode'), req.query).id)));
  });
  router.get('/api/video/feed', async (req, res) => {
    const { page, size } = parseInput(pagingSchema, req.query);
    res.json(ok(await viewing.feed.page(req.context, page, size)));
  });

  return router;
}
