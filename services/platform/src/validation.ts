import { z } from 'zod';
import { Invalid } from './errors.ts';

/**
 * Parses untrusted input at the edge. Every problem becomes a field message in a 422, never a
 * crash: a missing body, a wrong type and a bad value all read as the schema's own prompts.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const fields: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const field = issue.path.length ? issue.path.join('.') : 'body';
    fields[field] ??= issue.message;
  }
  throw new Invalid(fields);
}

/** `page` from 1 and `size` from 1 to 50 (default 20), from a query string. */
export const pagingSchema = z.object({
  page: z.coerce.number({ message: 'page must be a whole number from 1' }).int('page must be a whole number from 1').min(1, 'page must be a whole number from 1').default(1),
  size: z.coerce.number({ message: 'size must be a whole number from 1 to 50' }).int('size must be a whole number from 1 to 50').min(1, 'size must be a whole number from 1 to 50').max(50, 'size must be a whole number from 1 to 50').default(20),
});

/** A required text field whose prompt shows when it is missing, empty or not text. */
export const requiredText = (prompt: string, max = 500) =>
  z.string({ message: prompt }).trim().min(1, prompt).max(max, `Must be at most ${max} characters`);
