import { fireEvent, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { PlaybackRow, SummaryRow } from '../api';
import { calls, lastCall, member, ok, open, serve, type Call } from '../consoleTestKit';
import { sideBySide } from './CampaignsSection';

// uPlot draws on a canvas jsdom has not: each chart's data, and whether it is bars, is what is checked.
const charts: { data: unknown[][]; bars: boolean; element: HTMLElement }[] = [];
vi.mock('uplot', () => ({
  default: class {
    static paths = { bars: () => 'bars' };
    constructor(options: { series: { paths?: unknown }[] }, data: unknown[][], element: HTMLElement) {
      charts.push({ data, bars: options.series.some((series) => series.paths === 'bars'), element });
    }
    setSize() {}
    destroy() {}
  },
}));
vi.mock('uplot/dist/uPlot.min.css', () => ({}));

const { credential, roleAnswer } = member('operator');
const chartOf = (name: string) => charts.filter((chart) => chart.element.getAttribute('aria-label') === name).at(-1);

const row = (key: string, fields: Partial<SummaryRow> & { net?: number }): SummaryRow => ({
  key,
  visits: 0,
  landings: fields.landings ?? 0,
  orders: fields.orders ?? 0,
  revenue: fields.revenue ?? { amount: fields.net ?? 0, currency: 'USD' },
  revenueNet: { amount: fields.net ?? 0, currency: 'USD' },
});
const funnel = { landed: 200, viewed: 120, registered: 40, converted: 20, paid: 10 };
const playback: PlaybackRow[] = [
  { key: '720p', plays: 40, startupMsP50: 400, startupMsP95: 1200, rebufferRatio: 0.0125, rebufferCount: 3, exitsBeforeStart: 2, startFailures: 1, errors: 2 },
  { key: '360p', plays: 10, startupMsP50: null, startupMsP95: null, rebufferRatio: null, rebufferCount: 0, exitsBeforeStart: 0, startFailures: 0, errors: 0 },
];

/** The summary by day, or by a source under either model. */
function summary(call: Call) {
  const by = call.query.get('by');
  if (by === 'day') return ok([row('2026-11-02', { orders: 2, revenue: { amount: 998, currency: 'USD' }, net: 499 })], { model: 'last', funnel });
  const first = [row('spring', { landings: 5, orders: 1, net: 499 }), row('winter', { landings: 2, orders: 1, net: 999 })];
  const last = [row('spring', { landings: 7, orders: 2, net: 1498 })];
  return ok(call.query.get('model') === 'first' ? first : last, { model: call.query.get('model'), funnel });
}

beforeEach(() => {
  charts.length = 0;
  localStorage.clear();
});
describe('analytics', () => {
  it('charts gross and net revenue for every day of the range, zero where nothing sold, and offers the CSV', async () => {
    serve({ 'GET /api/admin/users': roleAnswer, 'GET /api/admin/analytics/summary': summary, 'GET /api/admin/analytics/playback': ok([]) });
    open('/admin/analytics', credential);
    await screen.findByText('Total: $9.98 gross, $4.99 net, 2 orders');
    expect(calls.some((call) => call.path === '/api/admin/analytics/summary' && call.query.get('by') === 'day' && call.query.get('model') === 'last')).toBe(true);
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-11-01' } });
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-11-03' } });
    fireEvent.click(screen.getByRole('button', { name: 'Search' }));
    const revenue = 'Chart of gross and net revenue per day';
    await vi.waitFor(() => expect(chartOf(revenue)?.data[0]).toHaveLength(3));
    expect(chartOf(revenue)!.data).toEqual([[Date.UTC(2026, 10, 1) / 1000, Date.UTC(2026, 10, 2) / 1000, Date.UTC(2026, 10, 3) / 1000], [0, 9.98, 0], [0, 4.99, 0]]);
    expect(screen.getByRole('link', { name: 'Download CSV' }).getAttribute('href')).toBe('/api/admin/analytics/summary?from=2026-11-01&to=2026-11-03&by=day&format=csv');
  });

  it('shows the funnel the summary carries, each step a bar and a share of those who landed', async () => {
    serve({ 'GET /api/admin/users': roleAnswer, 'GET /api/admin/analytics/summary': summary, 'GET /api/admin/analytics/playback': ok([]) });
    open('/admin/analytics', credential);
    const section = await screen.findByRole('region', { name: 'Funnel' });
    const chart = chartOf('Bar chart of the funnel: users at each step')!;
    expect(chart.bars).toBe(true);
    expect(chart.data).toEqual([[0, 1, 2, 3, 4], [200, 120, 40, 20, 10]]);
    const registered = within(section).getByRole('row', { name: /Registered/ });
    expect(registered.textContent).toBe('Registered4020%');
    expect(within(section).getByRole('row', { name: /^Paid/ }).textContent).toBe('Paid105%');
  });

  it('puts first and last touch side by side for a source, each with its CSV', async () => {
    serve({ 'GET /api/admin/users': roleAnswer, 'GET /api/admin/analytics/summary': summary, 'GET /api/admin/analytics/playback': ok([]) });
    open('/admin/analytics', credential);
    const section = await screen.findByRole('region', { name: 'Campaigns' });
    const spring = await within(section).findByRole('row', { name: /^spring/ });
    expect([...spring.querySelectorAll('td')].map((cell) => cell.textContent)).toEqual(['5', '1', '$4.99', '7', '2', '$14.98']);
    expect([...within(section).getByRole('row', { name: /^winter/ }).querySelectorAll('td')].map((cell) => cell.textContent)).toEqual(['2', '1', '$9.99', '0', '0', '$0.00']);
    expect(chartOf('Bar chart of net revenue by first and last touch, top 2')!.data).toEqual([[0, 1], [4.99, 9.99], [14.98, 0]]);
    expect(within(section).getByRole('link', { name: 'Download CSV (First touch)' }).getAttribute('href')).toContain('by=campaign&model=first&format=csv');

    fireEvent.change(within(section).getByLabelText('Source'), { target: { value: 'clickId' } });
    await vi.waitFor(() => expect(lastCall('GET', '/api/admin/analytics/summary')!.query.get('by')).toBe('clickId'));
    expect(calls.filter((call) => call.query.get('by') === 'clickId').map((call) => call.query.get('model')).sort()).toEqual(['first', 'last']);
    within(section).getByRole('link', { name: 'Download CSV (Last touch)' });
  });

  it('shows playback quality by episode, and by rung on asking', async () => {
    serve({ 'GET /api/admin/users': roleAnswer, 'GET /api/admin/analytics/summary': summary, 'GET /api/admin/analytics/playback': ok(playback) });
    open('/admin/analytics', credential);
    const section = await screen.findByRole('region', { name: 'Playback quality' });
    const hd = await within(section).findByRole('row', { name: /^720p/ });
    expect([...hd.querySelectorAll('td')].map((cell) => cell.textContent)).toEqual(['40', '400 ms', '1,200 ms', '1.3%', '3', '2', '1', '2']);
    expect([...within(section).getByRole('row', { name: /^360p/ }).querySelectorAll('td')].map((cell) => cell.textContent)).toEqual(['10', '—', '—', '—', '0', '0', '0', '0']);
    expect(chartOf('Bar chart of plays and errors, top 2')!.data).toEqual([[0, 1], [40, 10], [2, 0]]);
    expect(lastCall('GET', '/api/admin/analytics/playback')!.query.get('by')).toBe('episode');
    fireEvent.change(within(section).getByLabelText('By'), { target: { value: 'rung' } });
    await vi.waitFor(() => expect(lastCall('GET', '/api/admin/analytics/playback')!.query.get('by')).toBe('rung'));
    expect(within(section).getByRole('link', { name: 'Download playback CSV' }).getAttribute('href')).toContain('by=rung&format=csv');
  });

  it('lists keys of last touch first, then those only first touch has', () => {
    const first = [row('a', {}), row('b', {})];
    const last = [row('c', {}), row('a', {})];
    expect(sideBySide(first, last).map((entry) => [entry.key, Boolean(entry.first), Boolean(entry.last)])).toEqual([
      ['c', false, true],
      ['a', true, true],
      ['b', true, false],
    ]);
  });
});
