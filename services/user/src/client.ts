import { Router } from 'express';
import { z } from 'zod';
import { ok, parseInput, requiredText, TtlCache, type Caller, type ServiceClient } from '@cliffhanger/platform';
import type { UserService } from './service.ts';

/** What other parts ask the user service: who a token belongs to, and a viewer's relation to a series. */
export interface UserClient {
  /** Who a token belongs to, with their role (the gateway puts both in the request context). */
  authenticate(token: string | undefined): Promise<Caller | null>;
  /** Drops what this client remembers of a session (it logged out). */
  forget(token: string): void;
  viewerOf(userId: string, videoId: string): Promise<{ favorited: boolean; resume: { episodeId: string; positionSeconds: number } | null }>;
}

export function userClientInProcess(users: UserService): UserClient {
  return {
    authenticate: (token) => users.identify(token),
    forget: () => {},
    viewerOf: (userId, videoId) => users.viewerOf(userId, videoId),
  };
}

const viewerQuery = z.object({ userId: requiredText('userId is required', 100), videoId: requiredText('videoId is required', 100) });

/** The user service's internal endpoints, behind the INTERNAL_TOKEN check of the service process. */
export function userInternalRoutes(users: UserService): Router {
  const router = Router();
  router.post('/internal/user/authenticate', async (req, res) => {
    const { token } = parseInput(z.object({ token: z.string().max(200).optional() }), req.body);
    res.json(ok({ caller: await users.identify(token) }));
  });
  router.get('/internal/user/viewer', async (req, res) => {
    const { userId, videoId } = parseInput(viewerQuery, req.query);
    res.json(ok(await users.viewerOf(userId, videoId)));
  });
  return router;
}

/**
 * The user service over HTTP, for a gateway or catalog process. Sessions are remembered for 5
 * seconds: one call per token, not one per request. The service itself keeps them a minute and is
 * told at once when sessions end; this process is not, so an ended session shows here within 5 s.
 */
export function userClientOverHttp(http: ServiceClient): UserClient {
  const sessions = new TtlCache<string, Caller>(5_000, 50_000);
  return {
    async authenticate(token) {
      if (!token) return null;
      const cached = sessions.get(token);
      if (cached !== undefined) return cached;
      const { caller } = await http.post<{ caller: Caller | null }>('/internal/user/authenticate', { token });
      if (caller) sessions.set(token, caller);
      return caller;
    },
    forget: (token) => sessions.delete(token),
    viewerOf: (userId, videoId) => http.get('/internal/user/viewer', { userId, videoId }),
  };
}
