import { Router, type Request } from 'express';
import { z } from 'zod';
import { NotFound, ok, pagingSchema, parseInput, requiredText, requireUser } from '@cliffhanger/platform';
import { zoneOrUtc } from './calendar.ts';
import type { CatalogTerms } from './ports.ts';
import type { UnlockService } from './service.ts';

const unlockBody = z.object({ episodeId: requiredText('Please choose an episode', 100) });

/** The viewer's time zone: the IANA name in `x-time-zone`, UTC when it is missing or unknown. */
const zoneOf = (req: Request) => zoneOrUtc(req.get('x-time-zone'));

/** The unlock calls of docs/api.md ("Money and unlocks"), and the daily check-in ("Accounts"). */
export function unlockRoutes(unlocks: UnlockService, catalog: CatalogTerms): Router {
  const router = Router();

  router.post('/api/video/unlock', async (req, res) => {
    const userId = requireUser(req.context);
    const terms = await catalog.episodeTerms(parseInput(unlockBody, req.body).episodeId);
    if (!terms) throw new NotFound('No such episode');
    res.json(ok(await unlocks.unlockEpisode(req.context, userId, terms)));
  });

  router.get('/api/video/unlocked', async (req, res) => {
    const userId = requireUser(req.context);
    const { page, size } = parseInput(pagingSchema, req.query);
    const unlocked = await unlocks.listUnlocked(userId, page, size);
    const cards = await catalog.cardsOf(unlocked.items.map((item) => item.videoId));
    // A series taken down since is left out of the page, not shown broken.
    const items = unlocked.items.flatMap(({ videoId, episodes }) => {
      const video = cards.get(videoId);
      return video ? [{ video, episodes }] : [];
    });
    res.json(ok({ ...unlocked, items }));
  });

  router.get('/api/user/checkin', async (req, res) => {
    res.json(ok(await unlocks.checkinStatus(requireUser(req.context), zoneOf(req))));
  });

  router.post('/api/user/checkin', async (req, res) => {
    res.json(ok(await unlocks.checkIn(req.context, requireUser(req.context), zoneOf(req))));
  });

  return router;
}
