import { Router, type Response } from 'express';
import { z } from 'zod';
import { ok, parseInput, requireRole } from '@cliffhanger/platform';
import { playbackCsv, summaryCsv } from './csv.ts';
import type { AnalyticsReports } from './reports.ts';
import { attributionModels, playbackDimensions, summaryDimensions } from './schema.ts';

/** The longest range a report sums: a year, leap day included. */
export const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;

/** A real calendar day written `YYYY-MM-DD` (2024-02-30 is not one, nor is year 0, which PostgreSQL refuses). */
function isDay(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || value.startsWith('0000')) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

const day = (field: string) => {
  const prompt = `${field} must be a date (YYYY-MM-DD)`;
  return z.string({ message: prompt }).refine(isDay, prompt);
};

function checkRange(range: { from: string; to: string }, context: z.RefinementCtx): void {
  if (!isDay(range.from) || !isDay(range.to)) return; // already answered by the field's own rule
  const days = (Date.parse(range.to) - Date.parse(range.from)) / DAY_MS + 1;
  if (days < 1) context.addIssue({ code: 'custom', path: ['to'], message: 'to must not be before from' });
  else if (days > MAX_RANGE_DAYS) context.addIssue({ code: 'custom', path: ['to'], message: `A report covers at most ${MAX_RANGE_DAYS} days` });
}

const format = z.enum(['json', 'csv'], { message: 'format must be json or csv' }).default('json');

/** A CSV download: named after the report and its query, never cached. */
function sendCsv(res: Response, name: string, body: string): void {
  res.setHeader('Content-Disposition', `attachment; filename="${name}.csv"`);
  res.setHeader('Cache-Control', 'no-store');
  res.type('text/csv').send(body);
}

const summaryQuery = z
  .object({
    from: day('from'),
    to: day('to'),
    by: z.enum(summaryDimensions, { message: `by must be one of ${summaryDimensions.join(', ')}` }).default('day'),
    model: z.enum(attributionModels, { message: `model must be one of ${attributionModels.join(', ')}` }).default('last'),
    format,
  })
  .superRefine(checkRange);

const playbackQuery = z
  .object({
    from: day('from'),
    to: day('to'),
    by: z.enum(playbackDimensions, { message: `by must be one of ${playbackDimensions.join(', ')}` }).default('episode'),
    format,
  })
  .superRefine(checkRange);

/** The analyst's calls of docs/api.md ("Admin"), behind ADMIN_TOKEN. */
export function analyticsAdminRoutes(reports: AnalyticsReports, adminToken: string | undefined): Router {
  const router = Router();
  router.use('/api/admin/analytics', requireRole(adminToken, 'operator'));

  router.get('/api/admin/analytics/summary', async (req, res) => {
    const { by, model, format, ...range } = parseInput(summaryQuery, req.query);
    const rows = await reports.summary(by, model, range);
    if (format === 'csv') return sendCsv(res, `analytics-summary-${by}-${model}-${range.from}-${range.to}`, summaryCsv(model, rows));
    // `data` stays the rows the contract names; the model and the funnel ride beside it in the envelope.
    res.json({ ...ok(rows), model, funnel: await reports.funnel(range) });
  });

  router.get('/api/admin/analytics/playback', async (req, res) => {
    const { by, format, ...range } = parseInput(playbackQuery, req.query);
    const rows = await reports.playback(by, range);
    if (format === 'csv') return sendCsv(res, `analytics-playback-${by}-${range.from}-${range.to}`, playbackCsv(rows));
    res.json(ok(rows));
  });

  return router;
}
