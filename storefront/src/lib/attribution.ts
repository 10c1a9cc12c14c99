import { readStored, STORAGE_KEYS, writeStored } from './storage';

export interface ClickIds {
  fbclid?: string;
  ttclid?: string;
}

export interface Attribution extends ClickIds {
  referrerToken?: string;
  userToken?: string;
}

// fbclid and ttclid share one click-id key (spec section 2), kept as one JSON object.
export function readClickIds(): ClickIds {
  const raw = readStored(STORAGE_KEYS.clickIds);
  if (!raw) return {};
  try {
    const parsed = JSON.parse(raw) as ClickIds;
    return {
      ...(typeof parsed.fbclid === 'string' && parsed.fbclid ? { fbclid: parsed.fbclid } : {}),
      ...(typeof parsed.ttclid === 'string' && parsed.ttclid ? { ttclid: parsed.ttclid } : {}),
    };
  } catch {
    return {};
  }
}

export function readAttribution(): Attribution {
  const referrerToken = readStored(STORAGE_KEYS.referrerToken) ?? undefined;
  const userToken = readStored(STORAGE_KEYS.userToken) ?? undefined;
  return {
    ...(referrerToken ? { referrerToken } : {}),
    ...(userToken ? { userToken } : {}),
    ...readClickIds(),
  };
}

export const UTM_FIELDS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;
export type Utm = Partial<Record<(typeof UTM_FIELDS)[number], string>>;

export function readUtm(): Utm {
  try {
    const parsed = JSON.parse(readStored(STORAGE_KEYS.utm) ?? '{}') as Record<string, unknown>;
    return Object.fromEntries(UTM_FIELDS.flatMap((field) => (typeof parsed[field] === 'string' ? [[field, parsed[field]]] : [])));
  } catch {
    return {};
  }
}

/**
 * Keeps token (as the referrer token), fbclid, ttclid and the utm_* fields of a URL's query; runs
 * before every navigation. The utm fields travel together: a URL with any replaces them all.
 */
export function keepAttribution(search: URLSearchParams | string): void {
  const query = typeof search === 'string' ? new URLSearchParams(search) : search;
  const utm = Object.fromEntries(UTM_FIELDS.flatMap((field) => (query.get(field) ? [[field, query.get(field)]] : [])));
  if (Object.keys(utm).length > 0) writeStored(STORAGE_KEYS.utm, JSON.stringify(utm));
  const token = query.get('token');
  if (token) writeStored(STORAGE_KEYS.referrerToken, token);
  const fbclid = query.get('fbclid');
  const ttclid = query.get('ttclid');
  if (fbclid || ttclid) {
    const next: ClickIds = { ...readClickIds() };
    if (fbclid) next.fbclid = fbclid;
    if (ttclid) next.ttclid = ttclid;
    writeStored(STORAGE_KEYS.clickIds, JSON.stringify(next));
  }
}

export function keepUserToken(token: string | null): void {
  writeStored(STORAGE_KEYS.userToken, token);
}

export function keepUserId(id: string | null): void {
  writeStored(STORAGE_KEYS.userId, id);
}

let landedWithToken: boolean | undefined;

/** Notes whether this page load began with a stored user token; main.tsx calls it before the first call, which makes a new visitor a guest. */
export function noteLanding(): void {
  landedWithToken = readStored(STORAGE_KEYS.userToken) !== null;
}

/** Whether the visitor had been here before this page load (a stored token): a guest made since has no history yet. */
export function landedAsReturningViewer(): boolean {
  return landedWithToken ?? readStored(STORAGE_KEYS.userToken) !== null;
}
