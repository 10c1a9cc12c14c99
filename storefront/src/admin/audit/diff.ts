/** One field an audited change touched: its value before and after (undefined where it was absent). */
export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The fields an audit entry's `before` and `after` differ in, in the order `after` names them: a
 * creation (no before) is every field it set, a removal (no after) every field it took. Values that
 * are not objects (a list of episode ids) are one change of the whole, under the field "".
 */
export function changedFields(before: unknown, after: unknown): FieldChange[] {
  const absent = (value: unknown) => value === null || value === undefined;
  if ((isRecord(before) || absent(before)) && (isRecord(after) || absent(after))) {
    const was = isRecord(before) ? before : {};
    const is = isRecord(after) ? after : {};
    const fields = [...new Set([...Object.keys(is), ...Object.keys(was)])];
    return fields.filter((field) => !same(was[field], is[field])).map((field) => ({ field, before: was[field], after: is[field] }));
  }
  return same(before, after) ? [] : [{ field: '', before: absent(before) ? undefined : before, after: absent(after) ? undefined : after }];
}

/** A value as the diff shows it: text as itself, anything else as JSON; nothing for an absent value. */
export const shown = (value: unknown): string => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value));
