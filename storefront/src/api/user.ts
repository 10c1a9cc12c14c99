import { api, request, type Page } from './client';
import type { Checkin, CheckinStatus, FavoriteItem, HistoryItem, User, UserSettings } from './types';

export interface Credentials {
  email: string;
  password: string;
}

export interface Registration extends Credentials {
  confirmPassword: string;
}

/** The providers social sign-in may offer (docs/api.md "Accounts"). */
export type SignInProvider = 'google' | 'facebook';

/**
 * Where the browser goes to sign in with a provider: a top-level navigation, not a call. Its answer
 * sets the cookie that binds the sign-in to this browser, so the code that comes back works only here.
 */
export const signInStartUrl = (provider: SignInProvider, redirect: string) => `/api/user/oauth/${provider}/start?${new URLSearchParams({ redirect })}`;

/** The browser's time zone: the check-in counts calendar days where the viewer is. */
const inViewersTimeZone = () => ({ headers: { 'x-time-zone': Intl.DateTimeFormat().resolvedOptions().timeZone } });

export const userCalls = {
  current: () => api.get<User>('/api/user'),
  login: (credentials: Credentials) => api.post<User>('/api/user/login', { ...credentials }),
  register: (registration: Registration) => api.post<User>('/api/user/register', { ...registration }),
  logout: () => api.post<null>('/api/user/logout', {}),
  /** Beyond the shared contract (docs/api.md): the providers the login page offers. */
  signInProviders: () => api.get<{ providers: SignInProvider[] }>('/api/user/oauth/providers'),
  /**
   * Turns the one-time code a provider sign-in came back with into a session (the client keeps its
   * token). Same-origin, so the browser sends the sign-in's binding cookie along.
   */
  exchangeSignIn: (code: string) => api.post<User>('/api/user/oauth/exchange', { code }),
  forgotPassword: (email: string) => api.post<null>('/api/user/password/forgot', { email }),
  resetPassword: (token: string, password: string, confirmPassword: string) =>
    api.post<null>('/api/user/password/reset', { token, password, confirmPassword }),
  /** Verifies the email a mailed link (`/verifyEmail?verify=`) was sent to: the member it verified. */
  verifyEmail: (token: string) => api.post<User>('/api/user/email/verify', { token }),
  /** Mails the member a new verification link (at most once a minute: HTTP 429 otherwise). */
  resendVerification: () => api.post<null>('/api/user/email/verification', {}),
  updateSettings: (settings: Partial<UserSettings>) => api.post<User>('/api/user/settings', { ...settings }),
  favorites: (page: number, size: number) => api.get<Page<FavoriteItem>>('/api/user/favorite', { page, size }),
  addFavorite: (videoId: string) => api.post<null>('/api/user/favorite', { videoId }),
  removeFavorite: (videoId: string) => api.delete<null>('/api/user/favorite', { videoId }),
  history: (page: number, size: number) => api.get<Page<HistoryItem>>('/api/user/history', { page, size }),
  // A position saved as the viewer leaves is `final` (the server writes it at once, not with the next
  // batch) and `keepalive` (it still arrives from a page being closed).
  recordHistory: (episodeId: string, positionSeconds: number, onLeave = false) =>
    api.post<null>('/api/user/history', { episodeId, positionSeconds, ...(onLeave && { final: true }) }, { keepalive: onLeave }),
  checkinStatus: () => request<CheckinStatus>('GET', '/api/user/checkin', inViewersTimeZone()),
  checkIn: () => api.post<Checkin>('/api/user/checkin', {}, inViewersTimeZone()),
};
