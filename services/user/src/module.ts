import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router } from 'express';
import { defineModule, requireMail } from '@cliffhanger/platform';
import { createUserAdmin } from './admin.ts';
import { userAdminRoutes } from './admin-routes.ts';
import { userClientInProcess, userClientOverHttp, userInternalRoutes, type UserClient } from './client.ts';
import type { AccountStanding, CatalogClient, OperatorVip, OperatorWallets } from './ports.ts';
import { TOKEN_HEADER, userRoutes } from './routes.ts';
import { createIdentityProviders } from './identity-providers.ts';
import { createUserService } from './service.ts';
import { createSocialSignIn } from './social-sign-in.ts';

export const userMigrations = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'migrations');

/** Guests, members, sessions, password reset, social sign-in, favorites and history (README.md). */
export const userModule = defineModule<UserClient>({
  name: 'user',
  migrations: userMigrations,
  publicPrefixes: ['/api/user', '/api/admin/users', '/api/admin/audit'],
  rateLimited: [
    ...[
      '/api/user/login',
      '/api/user/register',
      '/api/user/password/forgot',
      '/api/user/password/reset',
      '/api/user/oauth/exchange',
      '/api/user/email/verification',
      '/api/user/email/verify',
    ].map((path) => ({
      method: 'POST' as const,
      path,
    })),
    // Each start keeps a sign-in attempt for 10 minutes.
    { method: 'GET', path: '/api/user/oauth/:provider/start' },
    // Only a call that makes a guest counts: a viewer with a valid token reads itself as often as it likes.
    { method: 'GET', path: '/api/user', limit: 'guest', onlyAnonymous: true },
    { method: 'POST', path: '/api/user/history', limit: 'history' },
  ],
  needs: ['catalog', 'unlock', 'payment'],
  init({ platform, client }) {
    const { config } = platform;
    requireMail(config, 'user', 'password reset links');
    // Required in production (config); on a laptop the one process is the site.
    const publicUrl = config.PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`;
    const users = createUserService({
      ...platform,
      catalog: client<CatalogClient>('catalog'),
      standing: client<AccountStanding>('unlock'),
      publicUrl,
      sessionIdleDays: config.SESSION_IDLE_DAYS,
    });
    const signInClient = (id: string | undefined, secret: string | undefined, issuer: string | undefined) =>
      id && secret ? { clientId: id, clientSecret: secret, issuer } : undefined;
    const providers = createIdentityProviders(
      {
        google: signInClient(config.GOOGLE_CLIENT_ID, config.GOOGLE_CLIENT_SECRET, config.GOOGLE_ISSUER),
        facebook: signInClient(config.FACEBOOK_CLIENT_ID, config.FACEBOOK_CLIENT_SECRET, config.FACEBOOK_ISSUER),
        facebookGraphUrl: config.FACEBOOK_GRAPH_URL,
      },
      platform.logger,
    );
    const social = createSocialSignIn({ ...platform, providers, users, publicUrl });
    const admin = createUserAdmin({
      database: platform.database,
      users,
      standing: client<AccountStanding>('unlock'),
      wallets: client<OperatorWallets>('unlock'),
      // Looked up at a grant of VIP days only: a site of some modules (tests, the demo) runs without payment.
      vip: { grantVipDays: (grant, by) => client<OperatorVip>('payment').grantVipDays(grant, by) },
    });
    // Consumers subscribe before the platform starts delivering: every service's admin.audited lands here.
    platform.bus.subscribe('user.audit-log', ['admin.audited'], (event, tx) => admin.recordAudit(tx, event));
    return {
      client: userClientInProcess(users),
      routes: [userRoutes(users, social), userAdminRoutes(admin, config.ADMIN_TOKEN)],
      internalRoutes: [userInternalRoutes(users)],
      // Password mails go out after their answer (a stopping process sends those still on their way);
      // idle guests, and sessions and reset links nobody can use any more, are purged hourly.
      background: () => {
        const purge = () =>
          Promise.all([users.purgeIdleGuests(config.RETENTION_GUEST_DAYS), users.pruneSessions()]).then(
            ([guests, { sessions, resets, signIns, security }]) =>
              guests + sessions + resets + signIns + security > 0 &&
              platform.logger.info({ guests, sessions, resets, signIns, security }, 'retention: users purged'),
            (error: unknown) => platform.logger.warn({ err: error }, 'purging idle guests and sessions failed'),
          );
        let running = purge();
        const timer = setInterval(() => (running = running.then(purge)), 60 * 60_000).unref();
        // Heartbeats are written behind (watch-positions.ts); a flush still running is not doubled.
        let flushing: Promise<void> | null = null;
        const flushHistory = () =>
          (flushing ??= users
            .flushHistory()
            .catch((error: unknown) => platform.logger.warn({ err: error }, 'writing watch positions failed: kept for the next flush'))
            .finally(() => (flushing = null)));
        const historyTimer = setInterval(flushHistory, config.HISTORY_FLUSH_MS).unref();
        // Sessions ended in another process (a logout, a password set, a role change) are forgotten here at once.
        const watching = users.watchEndedSessions().catch((error: unknown) => {
          platform.logger.error({ err: error }, 'not told of sessions ended elsewhere: a token revoked there is trusted here for up to a minute');
          return async () => {};
        });
        return {
          async stop() {
            clearInterval(timer);
            clearInterval(historyTimer);
            await (await watching)();
            await running;
            // Shutdown (SIGTERM) loses no position: what is held is written before the database closes.
            await flushing;
            await users.flushHistory().catch((error: unknown) => platform.logger.error({ err: error, ...users.historyWaiting() }, 'watch positions lost at shutdown'));
            await users.mailSent();
          },
        };
      },
    };
  },
  remoteClient: ({ http }) => userClientOverHttp(http()),
  // The gateway remembers sessions for 5 seconds; one that logs out, or whose guest registers (its token
  // is revoked), through it is forgotten at once; a social sign-in may register the guest too.
  gatewayRoutes: (users) =>
    Router().post(['/api/user/logout', '/api/user/register', '/api/user/oauth/exchange'], (req, _res, next) => {
      users.forget(req.get(TOKEN_HEADER) ?? '');
      next();
    }),
});
