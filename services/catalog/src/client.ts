import { Router } from 'express';
import { z } from 'zod';
import { ok, parseInput, requiredText, type ServiceClient } from '@cliffhanger/platform';
import type { CatalogAdmin } from './admin.ts';
import type { EpisodeOffer } from './ports.ts';
import type { Rankings } from './rankings.ts';
import type { CatalogService, Homepage, Video, VideoCard } from './service.ts';

/** What other services ask the catalog. */
export interface CatalogClient {
  /** Cards of the videos that exist, by id; unknown ids are left out. */
  cardsOf(videoIds: string[]): Promise<Map<string, VideoCard>>;
  /** The series and number of an episode, or null when there is no such episode. */
  episodeRef(episodeId: string): Promise<{ videoId: string; number: number } | null>;
  /** An episode's series, number, free episodes, price and transcode status, or null when there is no such episode. */
  episodeTerms(episodeId: string): Promise<EpisodeOffer | null>;
}

/** What the gateway's pages ask the catalog: the home and series pages it renders on the server, a shared series link's preview, and the sitemap. */
export interface CatalogPages {
  /** A series as a visitor who has unlocked nothing sees it (its page's head and first screen), or null when there is no such series. */
  seriesPage(videoId: string): Promise<Video | null>;
  /** Ids of the listed series (those with an episode), most played first, at most `limit`. */
  listedSeries(limit: number): Promise<string[]>;
  /** The carousel and sections of the home page (its first picture is what a visitor's phone waits for). */
  homepage(): Promise<Homepage>;
  /** The first `size` series of each ranking every viewer shares (top, trending, new): the home page's rows. */
  sharedRankings(size: number): Promise<SharedRankings>;
}

export type SharedRankings = Awaited<ReturnType<Rankings['shared']>>;

/** In the catalog's own process, its client also carries the operator side (the demo seeder uses it). */
export interface LocalCatalogClient extends CatalogClient, CatalogPages {
  admin: CatalogAdmin;
}

export function catalogClientInProcess(catalog: CatalogService, rankings: Rankings, admin: CatalogAdmin): LocalCatalogClient {
  return { ...catalog.directory, homepage: () => catalog.homepage(), sharedRankings: (size) => rankings.shared(size), admin };
}

const cardsQuery = z.object({ ids: z.string().max(10_000).transform((ids) => ids.split(',').filter(Boolean).slice(0, 200)) });
const episodeQuery = z.object({ id: requiredText('id is required', 100) });
const limitQuery = z.object({ limit: z.coerce.number().int().min(1).max(50_000) });
const sizeQuery = z.object({ size: z.coerce.number().int().min(1).max(100) });

/** The catalog's internal endpoints, behind the INTERNAL_TOKEN check of the service process. */
export function catalogInternalRoutes(catalog: CatalogService, rankings: Rankings): Router {
  const router = Router();
  router.get('/internal/catalog/cards', async (req, res) => {
    const { ids } = parseInput(cardsQuery, req.query);
    res.json(ok([...(await catalog.directory.cardsOf(ids)).values()]));
  });
  router.get('/internal/catalog/episode-ref', async (req, res) => {
    res.json(ok(await catalog.directory.episodeRef(parseInput(episodeQuery, req.query).id)));
  });
  router.get('/internal/catalog/episode-terms', async (req, res) => {
    res.json(ok(await catalog.directory.episodeTerms(parseInput(episodeQuery, req.query).id)));
  });
  router.get('/internal/catalog/series-page', async (req, res) => {
    res.json(ok(await catalog.directory.seriesPage(parseInput(episodeQuery, req.query).id)));
  });
  router.get('/internal/catalog/listed-series', async (req, res) => {
    res.json(ok(await catalog.directory.listedSeries(parseInput(limitQuery, req.query).limit)));
  });
  router.get('/internal/catalog/homepage', async (_req, res) => {
    res.json(ok(await catalog.homepage()));
  });
  router.get('/internal/catalog/shared-rankings', async (req, res) => {
    res.json(ok(await rankings.shared(parseInput(sizeQuery, req.query).size)));
  });
  return router;
}

/** The catalog over HTTP, for services running apart from it. */
export function catalogClientOverHttp(http: ServiceClient): CatalogClient & CatalogPages {
  return {
    async cardsOf(videoIds) {
      if (videoIds.length === 0) return new Map();
      const cards = await http.get<VideoCard[]>('/internal/catalog/cards', { ids: videoIds.join(',') });
      return new Map(cards.map((card) => [card.id, card]));
    },
    episodeRef: (episodeId) => http.get('/internal/catalog/episode-ref', { id: episodeId }),
    episodeTerms: (episodeId) => http.get('/internal/catalog/episode-terms', { id: episodeId }),
    seriesPage: (videoId) => http.get('/internal/catalog/series-page', { id: videoId }),
    listedSeries: (limit) => http.get('/internal/catalog/listed-series', { limit: String(limit) }),
    homepage: () => http.get('/internal/catalog/homepage'),
    sharedRankings: (size) => http.get('/internal/catalog/shared-rankings', { size: String(size) }),
  };
}
