import { Router } from 'express';
import { z } from 'zod';
import { createServiceClient, ok, parseInput, requiredText } from '@cliffhanger/platform';
import type { CatalogService, VideoCard } from './service.ts';

/** What other services ask the catalog: the user service's CatalogDirectory port. */
export interface CatalogClient {
  /** Cards of the videos that exist, by id; unknown ids are left out. */
  cardsOf(videoIds: string[]): Promise<Map<string, VideoCard>>;
  /** The series and number of an episode, or null when there is no such episode. */
  episodeRef(episodeId: string): Promise<{ videoId: string; number: number } | null>;
}

export function catalogClientInProcess(catalog: CatalogService): CatalogClient {
  return catalog.directory;
}

const cardsQuery = z.object({ ids: z.string().max(10_000).transform((ids) => ids.split(',').filter(Boolean).slice(0, 200)) });
const episodeQuery = z.object({ id: requiredText('id is required', 100) });

/** The catalog's internal endpoints, behind the INTERNAL_TOKEN check of the service process. */
export function catalogInternalRoutes(catalog: CatalogService): Router {
  const router = Router();
  router.get('/internal/catalog/cards', async (req, res) => {
    const { ids } = parseInput(cardsQuery, req.query);
    res.json(ok([...(await catalog.directory.cardsOf(ids)).values()]));
  });
  router.get('/internal/catalog/episode-ref', async (req, res) => {
    res.json(ok(await catalog.directory.episodeRef(parseInput(episodeQuery, req.query).id)));
  });
  return router;
}

/** The catalog over HTTP, for a user service running apart. */
export function catalogClientOverHttp(baseUrl: string, internalToken: string): CatalogClient {
  const client = createServiceClient(baseUrl, internalToken);
  return {
    async cardsOf(videoIds) {
      if (videoIds.length === 0) return new Map();
      const cards = await client.get<VideoCard[]>('/internal/catalog/cards', { ids: videoIds.join(',') });
      return new Map(cards.map((card) => [card.id, card]));
    },
    episodeRef: (episodeId) => client.get('/internal/catalog/episode-ref', { id: episodeId }),
  };
}
