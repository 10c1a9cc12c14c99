import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { ok, pagingSchema, parseInput, requiredText } from '@cliffhanger/platform';
import { EXPIRED_VERIFICATION, type Session, type UserService } from './service.ts';
import { BINDING_COOKIE, BINDING_COOKIE_SECONDS, EXPIRED_SIGN_IN, type SocialSignIn } from './social-sign-in.ts';
import { looksLikeToken } from './tokens.ts';

const emailField = requiredText('Please enter your email', 254).pipe(z.email('Please enter a valid email'));
const passwordField = z
  .string({ message: 'Please enter your password' })
  .min(1, 'Please enter your password')
  .min(8, 'Password must be at least 8 characters')
  .max(128, 'Password must be at most 128 characters');
const repeatField = z.string({ message: 'Please repeat your password' }).min(1, 'Please repeat your password');

const matching = <T extends { password: string; confirmPassword: string }>(value: T, context: z.RefinementCtx) => {
  if (value.password !== value.confirmPassword)
    context.addIssue({ code: 'custom', path: ['confirmPassword'], message: 'The passwords do not match' });
};

const registerBody = z.object({ email: emailField, password: passwordField, confirmPassword: repeatField }).superRefine(matching);
const loginBody = z.object({ email: emailField, password: z.string({ message: 'Please enter your password' }).min(1, 'Please enter your password').max(128) });
const forgotBody = z.object({ email: emailField });
const resetBody = z
  .object({ token: requiredText('This reset link is invalid or has expired', 100), password: passwordField, confirmPassword: repeatField })
  .superRefine(matching);
const verifyBody = z.object({ token: requiredText(EXPIRED_VERIFICATION, 100) });
const settingsBody = z.object({ autoUnlock: z.boolean({ message: 'autoUnlock must be true or false' }).optional() });
const favoriteBody = z.object({ videoId: requiredText('Please choose a video', 100) });
const historyBody = z.object({
  episodeId: requiredText('Please choose an episode', 100),
  positionSeconds: z.number({ message: 'positionSeconds must be a number of seconds' }).min(0).max(86_400).transform(Math.floor),
  // The viewer left, paused or finished: written at once, not with the next batch of heartbeats.
  final: z.boolean({ message: 'final must be true or false' }).optional(),
});
const signInStartQuery = z.object({ redirect: z.string().max(2000).optional() });
const signInExchangeBody = z.object({ code: requiredText(EXPIRED_SIGN_IN, 100) });

const PRIVATE_NO_STORE = 'private, no-store';

/** The header the storefront keeps the user token from, on every answer that issues one. */
export const TOKEN_HEADER = 'x-user-token';

/**
 * The cookie that marks a browser that logged in to an account (by password or a reset): such a
 * browser is not slowed by that account's failed logins elsewhere (login-throttle.ts). Sent only to the
 * account calls, never read by scripts nor sent from another site; a year, renewed at every login.
 */
export const DEVICE_COOKIE = 'cliffhanger_device';
const DEVICE_COOKIE_DAYS = 365;

function answerSession(res: Response, session: Session, secure: boolean) {
  res.setHeader(TOKEN_HEADER, session.token);
  if (session.device) setDeviceCookie(res, session.device, secure);
  res.json(ok(session.user));
}

function setDeviceCookie(res: Response, device: string, secure: boolean) {
  res.cookie(DEVICE_COOKIE, device, { httpOnly: true, secure, sameSite: 'strict', path: '/api/user', maxAge: DEVICE_COOKIE_DAYS * 86_400_000 });
}

const tokenOf = (req: Request) => req.get(TOKEN_HEADER);

/** A well-formed cookie `name` of the request, the first when several came. */
function cookieOf(req: Request, name: string): string | undefined {
  for (const pair of (req.get('cookie') ?? '').split(';')) {
    const at = pair.indexOf('=');
    const value = pair.slice(at + 1).trim();
    if (at !== -1 && pair.slice(0, at).trim() === name && looksLikeToken(value)) return value;
  }
  return undefined;
}

/**
 * Every account call of docs/api.md. The calls that guess passwords or send mail are rate limited by
 * the gateway (the module's `rateLimited`), whether this runs beside it or apart.
 */
export function userRoutes(users: UserService, social: SocialSignIn): Router {
  const router = Router();

  const secure = social.onHttps;
  // Who the viewer is and what they watched: never kept by a browser's or a CDN's cache.
  router.get('/api/user', async (req, res) => {
    res.setHeader('cache-control', PRIVATE_NO_STORE);
    answerSession(res, await users.currentUser(req.context, tokenOf(req)), secure);
  });
  router.post('/api/user/register', async (req, res) => {
    const body = parseInput(registerBody, req.body);
    answerSession(res, await users.register(req.context, body.email, body.password, cookieOf(req, DEVICE_COOKIE)), secure);
  });
  router.post('/api/user/login', async (req, res) => {
    const body = parseInput(loginBody, req.body);
    answerSession(res, await users.login(req.context, body.email, body.password, cookieOf(req, DEVICE_COOKIE)), secure);
  });
  router.post('/api/user/logout', async (req, res) => {
    await users.logout(tokenOf(req));
    res.json(ok(null));
  });
  router.post('/api/user/password/forgot', async (req, res) => {
    users.forgotPassword(parseInput(forgotBody, req.body).email);
    res.json(ok(null));
  });
  router.post('/api/user/password/reset', async (req, res) => {
    const body = parseInput(resetBody, req.body);
    const { device } = await users.resetPassword(body.token, body.password, cookieOf(req, DEVICE_COOKIE));
    setDeviceCookie(res, device, secure);
    res.json(ok(null));
  });
  router.post('/api/user/email/verification', async (req, res) => {
    await users.resendVerification(req.context);
    res.json(ok(null));
  });
  router.post('/api/user/email/verify', async (req, res) => {
    res.json(ok(await users.verifyEmail(parseInput(verifyBody, req.body).token)));
  });

  // Beyond the shared contract (docs/api.md): which buttons the login page shows.
  router.get('/api/user/oauth/providers', (_req, res) => {
    res.json(ok({ providers: social.providers() }));
  });
  // The cookie that binds a sign-in to its browser: sent only to these calls, never read by scripts,
  // and (Lax) never with another site's POST, so only the storefront's own exchange call carries it.
  const bindingCookie = { httpOnly: true, secure: social.onHttps, sameSite: 'lax', path: '/api/user/oauth' } as const;
  // Top-level navigations of the browser: they answer redirects, never to be cached (each is one attempt).
  router.get('/api/user/oauth/:provider/start', async (req, res) => {
    const query = parseInput(signInStartQuery, req.query);
    const { location, binding } = await social.start(req.params.provider, { returnTo: query.redirect });
    if (binding) res.cookie(BINDING_COOKIE, binding, { ...bindingCookie, maxAge: BINDING_COOKIE_SECONDS * 1000 });
    res.setHeader('cache-control', 'no-store').redirect(302, location);
  });
  router.get('/api/user/oauth/:provider/callback', async (req, res) => {
    const location = await social.callback(req.params.provider, new URL(req.originalUrl, 'http://callback.invalid').searchParams);
    res.setHeader('cache-control', 'no-store').redirect(302, location);
  });
  router.post('/api/user/oauth/exchange', async (req, res) => {
    const body = parseInput(signInExchangeBody, req.body);
    const session = await social.exchange(req.context, body.code, cookieOf(req, BINDING_COOKIE));
    res.clearCookie(BINDING_COOKIE, bindingCookie);
    answerSession(res, session, secure);
  });

  router.post('/api/user/settings', async (req, res) => {
    res.json(ok(await users.updateSettings(req.context, parseInput(settingsBody, req.body))));
  });

  router.get('/api/user/favorite', async (req, res) => {
    const { page, size } = parseInput(pagingSchema, req.query);
    res.json(ok(await users.favorites(req.context, page, size)));
  });
  router.post('/api/user/favorite', async (req, res) => {
    await users.setFavorite(req.context, parseInput(favoriteBody, req.body).videoId, true);
    res.json(ok(null));
  });
  router.delete('/api/user/favorite', async (req, res) => {
    await users.setFavorite(req.context, parseInput(favoriteBody, req.body).videoId, false);
    res.json(ok(null));
  });

  router.get('/api/user/history', async (req, res) => {
    const { page, size } = parseInput(pagingSchema, req.query);
    res.setHeader('cache-control', PRIVATE_NO_STORE);
    res.json(ok(await users.history(req.context, page, size)));
  });
  router.post('/api/user/history', async (req, res) => {
    const body = parseInput(historyBody, req.body);
    await users.recordHistory(req.context, body.episodeId, body.positionSeconds, body.final);
    res.json(ok(null));
  });

  return router;
}
