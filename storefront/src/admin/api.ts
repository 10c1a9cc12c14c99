// The console's one HTTP client: every admin call carries the operator's credential — a member's
// session (x-user-token, from signing in with email and password) or the admin token (for
// automation) — and answers the envelope's `data`, or throws an AdminError the page shows.

/** The console's own key: signing in here neither reads nor replaces the viewer's session on the storefront. */
export const CREDENTIAL_KEY = 'cliffhanger.console.credential';

/** A session's `id` is the member's (kept since the role pages; a session stored before has none). */
export type Credential = { kind: 'session'; token: string; email: string; id?: string } | { kind: 'adminToken'; token: string };

export function readCredential(): Credential | null {
  try {
    const parsed = JSON.parse(localStorage.getItem(CREDENTIAL_KEY) ?? 'null') as Credential | null;
    return parsed && typeof parsed.token === 'string' && parsed.token ? parsed : null;
  } catch {
    return null;
  }
}

export function storeCredential(credential: Credential | null): void {
  if (credential) localStorage.setItem(CREDENTIAL_KEY, JSON.stringify(credential));
  else localStorage.removeItem(CREDENTIAL_KEY);
}

/** A call that failed: its HTTP status (0 for no answer), the envelope's code, message and field errors. */
export class AdminError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const authHeaders = (credential: Credential | null): Record<string, string> =>
  !credential ? {} : credential.kind === 'session' ? { 'x-user-token': credential.token } : { authorization: `Bearer ${credential.token}` };

interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

/** Listeners told when the credential stops working (401), so the console goes back to its sign-in. */
const signedOut = new Set<() => void>();
export const onSignedOut = (listener: () => void) => {
  signedOut.add(listener);
  return () => void signedOut.delete(listener);
};

type CallInit = { method?: string; body?: unknown; file?: Blob; query?: Record<string, string | number | undefined> };

export async function call<T>(path: string, init: CallInit = {}): Promise<T> {
  return (await callForEnvelope<T>(path, init)).data;
}

/** The whole envelope, for the few answers that carry more beside `data` (the summary's funnel). */
export async function callForEnvelope<T, Beside extends object = object>(path: string, init: CallInit = {}): Promise<Envelope<T> & Partial<Beside>> {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(init.query ?? {})) if (value !== undefined && value !== '') search.set(key, String(value));
  const url = search.size ? `${path}?${search}` : path;
  // A file travels as the body itself, with its own type: the admin API reads any non-JSON body as the file.
  const [body, type] = init.file
    ? [init.file, init.file.type || 'application/octet-stream']
    : init.body === undefined
      ? [undefined, undefined]
      : [JSON.stringify(init.body), 'application/json'];
  let response: Response;
  try {
    response = await fetch(url, { method: init.method ?? 'GET', headers: { ...authHeaders(readCredential()), ...(type ? { 'content-type': type } : {}) }, body });
  } catch {
    throw new AdminError(0, 0, 'network');
  }
  let envelope: (Envelope<T> & Partial<Beside>) | null = null;
  try {
    envelope = (await response.json()) as Envelope<T> & Partial<Beside>;
  } catch {
    // Not the envelope (a proxy's page, an HTTP 404 of a call not built yet).
  }
  const code = envelope?.code ?? response.status;
  if (!response.ok || code !== 200) {
    if (response.status === 401 || code === 401) for (const listener of signedOut) listener();
    const data = envelope?.data as { fields?: Record<string, string> } | undefined;
    throw new AdminError(response.status, code, envelope?.message || response.statusText || `HTTP ${response.status}`, data?.fields ?? {});
  }
  return envelope!;
}

/** Signs a member in (POST /api/user/login) and answers their session for the console; no viewer's token is sent or changed. */
export async function signIn(email: string, password: string): Promise<Credential> {
  const response = await fetch('/api/user/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  const envelope = (await response.json().catch(() => null)) as Envelope<{ id?: string; email: string | null; fields?: Record<string, string> }> | null;
  const token = response.headers.get('x-user-token');
  if (!envelope || envelope.code !== 200 || !token) {
    throw new AdminError(response.status, envelope?.code ?? response.status, envelope?.message || `HTTP ${response.status}`, envelope?.data?.fields ?? {});
  }
  return { kind: 'session', token, email: envelope.data.email ?? email, id: envelope.data.id };
}

export async function signOut(credential: Credential | null): Promise<void> {
  if (credential?.kind === 'session') {
    await fetch('/api/user/logout', { method: 'POST', headers: { 'content-type': 'application/json', 'x-user-token': credential.token }, body: '{}' }).catch(() => undefined);
  }
  storeCredential(null);
}

export interface Money {
  amount: number;
  currency: string;
}

export interface Page<T> {
  items: T[];
  page: number;
  size: number;
  hasMore: boolean;
}

export const ORDER_STATUSES = ['created', 'succeeded', 'failed', 'canceled', 'partially_refunded', 'refunded'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export interface AdminOrder {
  id: string;
  planId: string;
  title?: string;
  price: Money;
  status: OrderStatus;
  createdAt: string;
  user: { id: string; email: string | null };
  payments: { id: string; status: string; succeededAt: string | null; failureReason: string | null }[];
  refunded?: Money;
  refunds: { id: string; amount: Money; source: string; reason: string | null; status: string; createdAt: string }[];
}

export interface OrderFilter {
  email?: string;
  orderId?: string;
  status?: string;
  from?: string;
  to?: string;
}

/** The order as refunded, and what was reversed (`reversed`; the contract's first draft listed its fields beside the order). */
export interface RefundAnswer {
  id: string;
  status: string;
  refunded?: Money;
  reversed?: { coinsTaken?: number; unlocksRevoked?: number; vipEnded?: boolean };
  coinsTaken?: number;
  unlocksRevoked?: number;
  vipEnded?: boolean;
}

export interface AdminUserDetail {
  id: string;
  kind: 'guest' | 'member';
  email: string | null;
  role: string;
  createdAt: string;
  wallet?: {
    balance: number;
    paidCoins?: number;
    bonusCoins?: number;
    bonusLots?: { coins?: number; remaining?: number; expiresAt: string }[];
    ledger?: Page<{ id?: string; delta?: number; coins?: number; reason?: string; kind?: string; reference?: string; createdAt: string }>;
    unlocks?: { episodeId?: string; videoId?: string; unlockedAt: string }[];
  };
  subscription: null | { planId: string; renewsAt: string; cancelAtPeriodEnd: boolean; status?: string };
  sessions: { createdAt: string; lastUsedAt: string }[];
}

export interface SummaryRow {
  key: string;
  visits?: number;
  landings?: number;
  videoViews?: number;
  unlocks?: number;
  orders: number;
  revenue: Money;
  revenueNet?: Money;
  vipStarts?: number;
  vipCancels?: number;
}

/** Whole UTC days, both ends included, as `YYYY-MM-DD`: a report's range. */
export interface DayRange {
  from: string;
  to: string;
}

export type SummaryDimension = 'day' | 'clickId' | 'referrer' | 'campaign';
export type AttributionModel = 'first' | 'last';

/** Of the users who first landed in the range: all, those who viewed a video, registered, converted (an unlock or a paid order), paid. */
export interface Funnel {
  landed: number;
  viewed: number;
  registered: number;
  converted: number;
  paid: number;
}

export interface SummaryReport {
  rows: SummaryRow[];
  funnel: Funnel | null;
}

export type PlaybackDimension = 'episode' | 'rung';

export interface PlaybackRow {
  key: string;
  plays: number;
  startupMsP50: number | null;
  startupMsP95: number | null;
  rebufferRatio: number | null;
  rebufferCount: number;
  exitsBeforeStart: number;
  startFailures: number;
  errors: number;
}

export type Role = 'viewer' | 'operator' | 'admin';
export const STAFF_ROLES = ['operator', 'admin'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

export interface AdminUser {
  id: string;
  kind: 'guest' | 'member';
  email: string | null;
  emailVerified: boolean;
  role: Role;
  createdAt: string;
  registeredAt: string | null;
}

/** The actions the audit log names (docs/api.md, GET /api/admin/audit). */
export const AUDIT_ACTIONS = [
  'user.role',
  'user.grant',
  'user.sessions.revoke',
  'plan.create',
  'plan.update',
  'plan.retire',
  'order.refund',
  'events.replay',
  'series.create',
  'series.update',
  'series.cover',
  'episodes.reorder',
  'episode.upload',
  'episode.retranscode',
  'subtitles.put',
  'subtitles.remove',
  'section.put',
] as const;

export interface AuditEntry {
  id: string;
  at: string;
  actor: string;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
}

export interface AuditFilter {
  actor?: string;
  action?: string;
  target?: string;
  from?: string;
  to?: string;
}

export interface AdminPlan {
  id: string;
  kind: 'coins' | 'vip';
  title: string;
  price: Money;
  coins?: number;
  bonusCoins?: number;
  periodDays?: number;
  periodMonths?: number;
  firstPurchaseOnly?: boolean;
  active: boolean;
  position: number;
  retiredAt: string | null;
}

/** What the plan form sends: a change leaves out `id`, `kind` and `periodMonths`, which the API fixes at creation. */
export interface PlanFields {
  title: string;
  price: { amount: number };
  coins?: number;
  bonusCoins?: number;
  periodDays?: number;
  active: boolean;
  position: number;
}
export interface NewPlan extends PlanFields {
  id: string;
  kind: 'coins' | 'vip';
  periodMonths?: number;
}

export interface DeadEvent {
  consumer: string;
  eventId: string;
  type: string | null;
  occurredAt: string;
  error: string;
  failedAt: string;
  attempts: number;
  replayRequestedAt: string | null;
}

export const JOB_STATES = ['waiting', 'active', 'failed'] as const;
export type JobStateName = (typeof JOB_STATES)[number];

/** A job of the queue (GET /api/admin/jobs); a transcode's data names its episode. */
export interface AdminJob {
  id: string;
  queue: string;
  status: JobStateName;
  data: { episodeId?: string } | null;
  attempts: number;
  progress: number;
  lastError: string | null;
  createdAt: string;
  finishedAt: string | null;
}

export type PartState = 'up' | 'degraded' | 'starting' | 'down';

/** GET /api/admin/health: what /readyz checks, part by part, and each module with the gateway's circuit to it. */
export interface SiteHealth {
  parts: { name: 'database' | 'queue' | 'bus'; kind: string; state: PartState }[];
  services: { name: string; runs: 'here' | 'apart'; state: PartState | 'unknown'; circuit: 'closed' | 'open' | 'half-open' | null }[];
}

export interface AdminVideo {
  id: string;
  title: string;
  description: string;
  tags: string[];
  /** A path under /media; empty while the series has none. */
  cover: string;
  freeEpisodes: number;
  priceCoins: number;
  episodeCount: number;
  hidden: boolean;
  failedEpisodes: number;
  createdAt: string;
}

export interface VideoFilter {
  query?: string;
  tag?: string;
  visibility?: 'published' | 'hidden';
  failed?: 'true';
}

/** What the create and edit forms send: every field of a series but its id and cover. */
export interface SeriesFields {
  title: string;
  description: string;
  tags: string[];
  freeEpisodes: number;
  priceCoins: number;
  hidden: boolean;
}

export const SUBTITLE_LANGS = ['en', 'es', 'fy', 'dy', 'pt'] as const;
export type SubtitleLang = (typeof SUBTITLE_LANGS)[number];

export interface AdminSubtitle {
  episodeId: string;
  lang: SubtitleLang;
  label: string;
  cues: number;
  bytes: number;
  uploadedAt: string;
}

export interface AdminEpisode {
  id: string;
  videoId: string;
  number: number;
  title: string;
  status: 'planned' | 'pending' | 'processing' | 'ready' | 'failed';
  progress: number | null;
  error: string | null;
}

/** The console's calls, by the API contract (docs/api.md, "Admin"). */
export const admin = {
  orders: (filter: OrderFilter, page: number, size: number) => call<Page<AdminOrder>>('/api/admin/orders', { query: { ...filter, page, size } }),
  refund: (orderId: string, body: { amount?: number; reason: string }) =>
    call<RefundAnswer>(`/api/admin/orders/${encodeURIComponent(orderId)}/refund`, { method: 'POST', body }),
  user: (id: string) => call<AdminUserDetail>(`/api/admin/users/${encodeURIComponent(id)}`),
  grant: (id: string, body: { coins?: number; vipDays?: number; reason: string }) =>
    call<unknown>(`/api/admin/users/${encodeURIComponent(id)}/grants`, { method: 'POST', body }),
  revokeSessions: (id: string) => call<{ revoked: number }>(`/api/admin/users/${encodeURIComponent(id)}/sessions/revoke`, { method: 'POST', body: {} }),
  summary: async (from: string, to: string, by: SummaryDimension = 'day', model: AttributionModel = 'last'): Promise<SummaryReport> => {
    const envelope = await callForEnvelope<SummaryRow[], { funnel: Funnel }>('/api/admin/analytics/summary', { query: { from, to, by, model } });
    return { rows: envelope.data, funnel: envelope.funnel ?? null };
  },
  playback: (from: string, to: string, by: PlaybackDimension) => call<PlaybackRow[]>('/api/admin/analytics/playback', { query: { from, to, by } }),
  deadEvents: () => call<DeadEvent[]>('/api/admin/events/dead'),
  replay: (ids?: string[]) => call<{ replayed: number }>('/api/admin/events/replay', { method: 'POST', body: ids ? { ids } : {} }),
  jobs: (state: JobStateName, page: number, size: number) => call<Page<AdminJob> & { total: number }>('/api/admin/jobs', { query: { state, page, size } }),
  health: () => call<SiteHealth>('/api/admin/health'),
  videos: (filter: VideoFilter, page: number, size: number) => call<Page<AdminVideo>>('/api/admin/videos', { query: { ...filter, page, size } }),
  tags: () => call<{ id: string; name: string }[]>('/api/tag'),
  createVideo: (fields: SeriesFields) => call<{ video: AdminVideo; created: boolean }>('/api/admin/videos', { method: 'POST', body: fields }),
  updateVideo: (id: string, changes: Partial<SeriesFields>) => call<AdminVideo>(`/api/admin/videos/${encodeURIComponent(id)}`, { method: 'PATCH', body: changes }),
  uploadCover: (id: string, file: File) => call<AdminVideo>(`/api/admin/videos/${encodeURIComponent(id)}/cover`, { method: 'PUT', file }),
  video: (id: string) => call<AdminVideo & { episodes: AdminEpisode[] }>(`/api/admin/videos/${encodeURIComponent(id)}`),
  reorder: (id: string, episodeIds: string[]) =>
    call<AdminEpisode[]>(`/api/admin/videos/${encodeURIComponent(id)}/episodes/order`, { method: 'PUT', body: { episodeIds } }),
  retranscode: (episodeId: string) => call<AdminEpisode>(`/api/admin/episodes/${encodeURIComponent(episodeId)}/retranscode`, { method: 'POST', body: {} }),
  subtitles: (episodeId: string) => call<AdminSubtitle[]>(`/api/admin/episodes/${encodeURIComponent(episodeId)}/subtitles`),
  putSubtitles: (episodeId: string, lang: SubtitleLang, file: File) =>
    // A .vtt file often comes without a type (or as text/plain): it is WebVTT whatever the browser says.
    call<AdminSubtitle>(`/api/admin/episodes/${encodeURIComponent(episodeId)}/subtitles/${lang}`, { method: 'PUT', file: new Blob([file], { type: 'text/vtt' }) }),
  removeSubtitles: (episodeId: string, lang: SubtitleLang) =>
    call<null>(`/api/admin/episodes/${encodeURIComponent(episodeId)}/subtitles/${lang}`, { method: 'DELETE' }),
  audit: (filter: AuditFilter, page: number, size: number) => call<Page<AuditEntry>>('/api/admin/audit', { query: { ...filter, page, size } }),
  plans: () => call<AdminPlan[]>('/api/admin/plans'),
  createPlan: (plan: NewPlan) => call<AdminPlan>('/api/admin/plans', { method: 'POST', body: plan }),
  updatePlan: (id: string, changes: Partial<PlanFields>) => call<AdminPlan>(`/api/admin/plans/${encodeURIComponent(id)}`, { method: 'PUT', body: changes }),
  retirePlan: (id: string) => call<AdminPlan>(`/api/admin/plans/${encodeURIComponent(id)}/retire`, { method: 'POST', body: {} }),
  users: (filter: { query?: string; role?: StaffRole }, page: number, size: number) => call<Page<AdminUser>>('/api/admin/users', { query: { ...filter, page, size } }),
  setRole: (id: string, role: Role) => call<AdminUser>(`/api/admin/users/${encodeURIComponent(id)}/role`, { method: 'PUT', body: { role } }),
  me: () => call<{ id: string }>('/api/user'),
};

/** A report's CSV address (`format=csv`): the link's own, which the page fetches with the credential. */
export const reportCsvUrl = (report: 'summary' | 'playback', query: Record<string, string>) =>
  `/api/admin/analytics/${report}?${new URLSearchParams({ ...query, format: 'csv' })}`;

/** A report's CSV, fetched with the credential (a plain link could not carry it). */
export async function reportCsv(url: string): Promise<Blob> {
  const response = await fetch(url, { headers: authHeaders(readCredential()) });
  if (!response.ok) throw new AdminError(response.status, response.status, response.statusText || `HTTP ${response.status}`);
  return response.blob();
}

/** A date field's day as the API's instant: the start of that day, or the start of the next for "to" (in UTC). */
export const dayStart = (day: string | null, next = false) => {
  if (!day) return undefined;
  const date = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return undefined;
  if (next) date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString();
};

export const formatMoney = (money: Money | undefined, locale: string) =>
  money ? new Intl.NumberFormat(locale, { style: 'currency', currency: money.currency || 'USD' }).format(money.amount / 100) : '—';
export const formatTime = (iso: string | null | undefined, locale: string) =>
  iso ? new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)) : '—';
