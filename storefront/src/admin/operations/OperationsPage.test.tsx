import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AdminJob, SiteHealth } from '../api';
import { calls, lastCall, member, ok, open, serve, type Call } from '../consoleTestKit';

// The operations page's job queue, health and dead events, against a mocked fetch.

beforeEach(() => localStorage.clear());
const { credential, roleAnswer } = member('operator');
const asAdmin = member('admin');

const job = (id: string, status: AdminJob['status'], fields: Partial<AdminJob> = {}): AdminJob => ({
  id,
  queue: 'transcode-episode',
  status,
  data: { episodeId: `ep_${id}` },
  attempts: 0,
  progress: 0,
  lastError: null,
  createdAt: '2026-11-28T10:00:00.000Z',
  finishedAt: null,
  ...fields,
});

const health: SiteHealth = {
  parts: [
    { name: 'database', kind: 'postgres', state: 'up' },
    { name: 'queue', kind: 'bullmq', state: 'down' },
    { name: 'bus', kind: 'kafka', state: 'degraded' },
  ],
  services: [
    { name: 'user', runs: 'here', state: 'up', circuit: null },
    { name: 'payment', runs: 'apart', state: 'down', circuit: 'open' },
    { name: 'transcoder', runs: 'apart', state: 'unknown', circuit: null },
  ],
};

/** The page for an operator, with no jobs waiting and `health` as the parts' state. */
function openQuiet(): void {
  serve({
    'GET /api/admin/users': roleAnswer,
    'GET /api/admin/jobs': ok({ queue: 'transcode-episode', state: 'waiting', items: [], page: 1, size: 20, total: 0, hasMore: false }),
    'GET /api/admin/health': ok(health),
  });
  open('/admin/operations', credential);
}

describe('operations: jobs, health and dead events', () => {
  it('lists jobs by state, shows a running one’s progress and a failed one’s reason, and transcodes a failed one again', async () => {
    let progress = 10;
    const jobs = (call: Call) => {
      const state = call.query.get('state');
      const page = Number(call.query.get('page'));
      if (state === 'active') return ok({ queue: 'transcode-episode', state, items: [job('run', 'active', { attempts: 1, progress })], page, size: 20, total: 1, hasMore: false });
      if (state === 'failed')
        return ok({ queue: 'transcode-episode', state, items: [job('bad', 'failed', { attempts: 3, lastError: 'FfmpegError: moov atom not found' })], page, size: 20, total: 1, hasMore: false });
      return ok({ queue: 'transcode-episode', state, items: [job(`wait${page}`, 'waiting')], page, size: 20, total: 21, hasMore: page === 1 });
    };
    serve({
      'GET /api/admin/users': roleAnswer,
      'GET /api/admin/jobs': jobs,
      'GET /api/admin/health': ok(health),
      'POST /api/admin/episodes/ep_bad/retranscode': ok({ id: 'ep_bad', status: 'pending' }),
    });
    open('/admin/operations', credential);

    await screen.findByText('ep_wait1');
    screen.getByText('21 jobs');
    fireEvent.click(screen.getByRole('button', { name: 'Next page' }));
    await screen.findByText('ep_wait2');
    expect(lastCall('GET', '/api/admin/jobs')!.query.get('page')).toBe('2');

    const states = within(screen.getByRole('group', { name: 'Job state' }));
    fireEvent.click(states.getByRole('button', { name: 'Running' }));
    expect(await screen.findByRole('progressbar', { name: 'ep_run: 10%' })).toHaveProperty('value', 10);
    expect(lastCall('GET', '/api/admin/jobs')!.query.get('page')).toBe('1');
    // The list is asked again on its own, so the bar moves without a click.
    progress = 60;
    await waitFor(() => screen.getByRole('progressbar', { name: 'ep_run: 60%' }), { timeout: 15_000 });

    fireEvent.click(states.getByRole('button', { name: 'Failed' }));
    await screen.findByText('FfmpegError: moov atom not found');
    expect(states.getByRole('button', { name: 'Failed' }).getAttribute('aria-pressed')).toBe('true');
    fireEvent.click(screen.getByRole('button', { name: 'Transcode again ep_bad' }));
    await screen.findByText('Episode ep_bad is queued to transcode again.');
    expect(calls.filter((call) => call.method === 'POST').map((call) => call.path)).toEqual(['/api/admin/episodes/ep_bad/retranscode']);
  });

  it('shows each part and service up or down, with the circuits, and says so when nothing waits', async () => {
    openQuiet();
    await screen.findByText('No jobs in this state.');
    const parts = within(await screen.findByRole('table', { name: 'Parts' }));
    expect(parts.getAllByRole('row').slice(1).map((row) => row.textContent)).toEqual([
      'DatabasepostgresUp',
      'Job queuebullmqDown',
      'Event buskafkaDegraded: events wait in the outbox',
    ]);
    const services = within(screen.getByRole('table', { name: 'Services' }));
    expect(services.getAllByRole('row').slice(1).map((row) => row.textContent)).toEqual([
      'userIn the gateway’s processUp—',
      'paymentApartDownOpen: calls refused',
      'transcoderApartUnknown: reached only through the queue—',
    ]);
  });

  it('tells an operator the dead events are an admin’s, and never asks for them', async () => {
    openQuiet();
    await screen.findByText('Dead events and their replay are an admin’s: an event may carry a payment or a viewer’s details.');
    await screen.findByText('No jobs in this state.');
    expect(screen.queryByRole('button', { name: /replay/i })).toBeNull();
    expect(calls.some((call) => call.path === '/api/admin/events/dead')).toBe(false);
  });

  it('lists dead events with their error and replays one, then all', async () => {
    const dead = {
      consumer: 'unlock.orders',
      eventId: '5b0f8f0e-6a57-4a3c-9d2e-0c5a1b7f3e21',
      type: 'payment.succeeded',
      occurredAt: '2026-11-27T10:00:00.000Z',
      error: 'connection refused',
      failedAt: '2026-11-27T10:01:00.000Z',
      attempts: 8,
      replayRequestedAt: null,
    };
    serve({
      'GET /api/admin/users': asAdmin.roleAnswer,
      'GET /api/admin/jobs': ok({ queue: 'transcode-episode', state: 'waiting', items: [], page: 1, size: 20, total: 0, hasMore: false }),
      'GET /api/admin/health': ok(health),
      'GET /api/admin/events/dead': ok([dead]),
      'POST /api/admin/events/replay': (call) => ok({ replayed: (call.body as { ids?: string[] }).ids?.length ?? 3 }),
    });
    open('/admin/operations', asAdmin.credential);
    await screen.findByText('connection refused');
    fireEvent.click(screen.getByRole('button', { name: 'Replay payment.succeeded' }));
    await screen.findByText('1 events put back.');
    expect(calls.find((call) => call.method === 'POST')!.body).toEqual({ ids: [dead.eventId] });
    fireEvent.click(screen.getByRole('button', { name: 'Replay all' }));
    await screen.findByText('3 events put back.');
    expect(calls.filter((call) => call.method === 'POST').at(-1)!.body).toEqual({});
  });
});
