import { Router } from 'express';
import { z } from 'zod';
import { createServiceClient, ok, parseInput, requiredText } from '@cliffhanger/platform';
import type { UserService } from './service.ts';

/** What other parts ask the user service when they run apart from it. */
export interface UserClient {
  authenticate(token: string | undefined): Promise<string | null>;
  viewerOf(userId: string, videoId: string): Promise<{ favorited: boolean; resume: { episodeId: string; positionSeconds: number } | null }>;
}

const viewerQuery = z.object({ userId: requiredText('userId is required', 100), videoId: requiredText('videoId is required', 100) });

/** The user service's internal endpoints, behind the INTERNAL_TOKEN check of the service process. */
export function userInternalRoutes(users: UserService): Router {
  const router = Router();
  router.post('/internal/user/authenticate', async (req, res) => {
    const { token } = parseInput(z.object({ token: z.string().max(200).optional() }), req.body);
    res.json(ok({ userId: await users.authenticate(token) }));
  });
  router.get('/internal/user/viewer', async (req, res) => {
    const { userId, videoId } = parseInput(viewerQuery, req.query);
    res.json(ok(await users.viewerOf(userId, videoId)));
  });
  return router;
}

/** The user service over HTTP, for a gateway or catalog process. */
export function userClientOverHttp(baseUrl: string, internalToken: string): UserClient {
  const client = createServiceClient(baseUrl, internalToken);
  return {
    authenticate: async (token) => (token ? (await client.post<{ userId: string | null }>('/internal/user/authenticate', { token })).userId : null),
    viewerOf: (userId, videoId) => client.get('/internal/user/viewer', { userId, videoId }),
  };
}
