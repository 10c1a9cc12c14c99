import { Router } from 'express';
import { z } from 'zod';
import { Invalid, ok, pagingSchema, parseInput, requiredText } from '@cliffhanger/platform';
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

/** Browsing and watching calls of docs/api.md. */
export function catalogRoutes(catalog: CatalogService, viewing: { rankings: Rankings; feed: Feed }): Router {
  const router = Router();

  router.get('/api/tag', async (_req, res) => {
    res.json(ok(await catalog.tags()));
  });
  router.get('/api/homepage', async (_req, res) => {
    res.json(ok(await catalog.homepage()));
  });
  router.get('/api/homepage/query', async (req, res) => {
    const query = parseInput(listQuery, req.query);
    const by = cardQueryOf(query);
    // top, trending, new and continue are kept from events (rankings.ts), not operator sections.
    if ('sectionId' in by && isRankingSection(by.sectionId)) {
      res.json(ok(await viewing.rankings.page(req.context, by.sectionId, query.page, query.size)));
    } else {
      res.json(ok(await catalog.query(by, query.page, query.size)));
    }
  });
  router.get('/api/video', async (req, res) => {
    res.json(ok(await catalog.video(req.context, parseInput(idOf('Please choose a video'), req.query).id)));
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
