export interface Envelope<T = unknown> {
  code: number;
  message: string;
  data: T;
}

export function ok<T>(data: T): Envelope<T> {
  return { code: 200, message: 'ok', data };
}

export function failure(code: number, message: string, data: unknown = null): Envelope {
  return { code, message, data };
}

export interface Page<T> {
  items: T[];
  page: number;
  size: number;
  hasMore: boolean;
}

/** Builds a page from a query that fetched `size + 1` rows, the extra one telling whether more exist. */
export function pageOf<T>(rows: T[], page: number, size: number): Page<T> {
  return { items: rows.slice(0, size), page, size, hasMore: rows.length > size };
}
