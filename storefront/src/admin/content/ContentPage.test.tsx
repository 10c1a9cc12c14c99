import { fireEvent, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AdminEpisode, AdminVideo } from '../api';
import { calls, lastCall, ok, open as openAt, refused, serve, signedIn } from '../consoleTestKit';

// The content pages against the console's test kit, as console.test.tsx renders the others.

/** A refusal as the API sends it: the envelope's 422 with the field's message. */
const invalid = (fields: Record<string, string>) => refused(422, Object.values(fields)[0]!, fields);

const series: AdminVideo = {
  id: 'vid_1',
  title: 'Midnight Heir',
  description: 'An heir returns.',
  tags: ['Romance', 'CEO'],
  cover: '/media/public/covers/vid_1.jpg',
  freeEpisodes: 2,
  priceCoins: 50,
  episodeCount: 3,
  hidden: false,
  failedEpisodes: 1,
  createdAt: '2026-11-20T10:00:00.000Z',
};
const episodes: AdminEpisode[] = [
  { id: 'ep_1', videoId: 'vid_1', number: 1, title: 'One', status: 'ready', progress: 100, error: null },
  { id: 'ep_2', videoId: 'vid_1', number: 2, title: 'Two', status: 'failed', progress: 0, error: 'ffmpeg exited 1' },
  { id: 'ep_3', videoId: 'vid_1', number: 3, title: 'Three', status: 'planned', progress: 0, error: null },
];
const tags = ok([
  { id: 'romance', name: 'Romance' },
  { id: 'ceo', name: 'CEO' },
]);

const open = (path: string) => openAt(path, signedIn);

beforeEach(() => {
  localStorage.clear();
  // jsdom reads no files: a chosen image's preview is any address.
  URL.createObjectURL = vi.fn(() => 'blob:preview');
  URL.revokeObjectURL = vi.fn();
});

describe('the series list', () => {
  it('searches by title, category, visibility and failed episodes, pages, and opens a series', async () => {
    serve({
      'GET /api/admin/videos': (call) => ok({ items: [series], page: Number(call.query.get('page')), size: 20, hasMore: call.query.get('page') === '1' }),
      'GET /api/tag': tags,
      'GET /api/admin/videos/vid_1': ok({ ...series, episodes }),
    });
    open('/admin/content');
    await screen.findByRole('button', { name: 'Midnight Heir' });
    screen.getByText(/1 failed/);
    const search = screen.getByRole('search', { name: 'Search series' });
    fireEvent.change(within(search).getByLabelText('Title'), { target: { value: 'heir' } });
    await within(search).findByRole('option', { name: 'CEO' });
    fireEvent.change(within(search).getByLabelText('Category'), { target: { value: 'ceo' } });
    fireEvent.change(within(search).getByLabelText('Visibility'), { target: { value: 'hidden' } });
    fireEvent.click(within(search).getByLabelText('Only series with a failed episode'));
    fireEvent.click(within(search).getByRole('button', { name: 'Search' }));
    await vi.waitFor(() => expect(lastCall('GET', '/api/admin/videos')!.query.get('query')).toBe('heir'));
    expect(Object.fromEntries(lastCall('GET', '/api/admin/videos')!.query)).toEqual({ query: 'heir', tag: 'ceo', visibility: 'hidden', failed: 'true', page: '1', size: '20' });
    fireEvent.click(await screen.findByRole('button', { name: 'Next page' }));
    await vi.waitFor(() => expect(lastCall('GET', '/api/admin/videos')!.query.get('page')).toBe('2'));

    fireEvent.click(screen.getByRole('button', { name: 'Midnight Heir' }));
    await screen.findByRole('heading', { name: 'Midnight Heir', level: 2 });
    expect(window.location.search).toBe('?series=vid_1');
  });
});

describe('a new series', () => {
  it('is checked before it is sent, created, and opened', async () => {
    const created = { ...series, id: 'vid_9', title: 'Second Wife', tags: ['Revenge'], hidden: true, failedEpisodes: 0, episodeCount: 0 };
    serve({
      'GET /api/admin/videos': ok({ items: [], page: 1, size: 20, hasMore: false }),
      'GET /api/tag': tags,
      'POST /api/admin/videos': ok({ video: created, created: true }),
      'GET /api/admin/videos/vid_9': ok({ ...created, episodes: [] }),
    });
    open('/admin/content');
    await screen.findByText('No series match.');
    fireEvent.click(screen.getByText('New series'));
    const form = screen.getByRole('button', { name: 'Create the series' }).closest('form')!;
    fireEvent.change(within(form).getByLabelText('Price per episode (coins)'), { target: { value: 'lots' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Create the series' }));
    within(form).getByText('Please enter a title.');
    within(form).getByText('Enter a whole number, 0 or more.');
    expect(within(form).getByLabelText(/^Title/).getAttribute('aria-invalid')).toBe('true');
    expect(calls.some((call) => call.method === 'POST')).toBe(false);

    fireEvent.change(within(form).getByLabelText(/^Title/), { target: { value: ' Second Wife ' } });
    fireEvent.change(within(form).getByLabelText('Description'), { target: { value: 'She comes back.' } });
    fireEvent.change(within(form).getByLabelText('Categories, separated by commas'), { target: { value: 'Revenge, , Romance ' } });
    fireEvent.change(within(form).getByLabelText('Price per episode (coins)'), { target: { value: '60' } });
    fireEvent.change(within(form).getByLabelText('Free episodes'), { target: { value: '3' } });
    fireEvent.click(within(form).getByLabelText('Hidden'));
    fireEvent.click(within(form).getByRole('button', { name: 'Create the series' }));
    await screen.findByText('Series created.');
    expect(lastCall('POST', '/api/admin/videos')!.body).toEqual({
      title: 'Second Wife',
      description: 'She comes back.',
      tags: ['Revenge', 'Romance'],
      priceCoins: 60,
      freeEpisodes: 3,
      hidden: true,
    });
    await screen.findByRole('heading', { name: 'Second Wife', level: 2 });
  });
});

describe('a series', () => {
  it('is edited, and a refusal of the API shows beside its field', async () => {
    let refuse = true;
    serve({
      'GET /api/admin/videos/vid_1': ok({ ...series, episodes }),
      'PATCH /api/admin/videos/vid_1': (call) => (refuse ? invalid({ title: 'Another series has this title' }) : ok({ ...series, ...(call.body as object) })),
    });
    open('/admin/content?series=vid_1');
    const form = (await screen.findByRole('heading', { name: 'Edit the series' })).parentElement!;
    expect((within(form).getByLabelText(/^Title/) as HTMLInputElement).value).toBe('Midnight Heir');
    expect((within(form).getByLabelText('Categories, separated by commas') as HTMLInputElement).value).toBe('Romance, CEO');
    expect((within(form).getByLabelText('Published') as HTMLInputElement).checked).toBe(true);
    fireEvent.change(within(form).getByLabelText(/^Title/), { target: { value: 'Taken Title' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Save' }));
    await within(form).findByText('Another series has this title', { selector: 'span' });
    expect(within(form).getByLabelText(/^Title/).getAttribute('aria-invalid')).toBe('true');

    refuse = false;
    fireEvent.change(within(form).getByLabelText(/^Title/), { target: { value: 'Midnight Heir' } });
    fireEvent.change(within(form).getByLabelText('Price per episode (coins)'), { target: { value: '80' } });
    fireEvent.click(within(form).getByLabelText('Hidden'));
    fireEvent.click(within(form).getByRole('button', { name: 'Save' }));
    await screen.findByText('Saved.');
    expect(lastCall('PATCH', '/api/admin/videos/vid_1')!.body).toEqual({
      title: 'Midnight Heir',
      description: 'An heir returns.',
      tags: ['Romance', 'CEO'],
      priceCoins: 80,
      freeEpisodes: 2,
      hidden: true,
    });
  });

  it('previews a chosen cover, then uploads it as the body', async () => {
    serve({
      'GET /api/admin/videos/vid_1': ok({ ...series, episodes }),
      'PUT /api/admin/videos/vid_1/cover': ok({ ...series, cover: '/media/public/covers/vid_1-new.jpg' }),
    });
    open('/admin/content?series=vid_1');
    expect((await screen.findByAltText('Current cover')).getAttribute('src')).toBe('/media/public/covers/vid_1.jpg');
    fireEvent.click(screen.getByRole('button', { name: 'Upload the cover' }));
    screen.getByText('Choose a file first.');
    const file = new File(['png bytes'], 'cover.png', { type: 'image/png' });
    fireEvent.change(screen.getByLabelText('Cover image'), { target: { files: [file] } });
    expect((await screen.findByAltText('Preview of the new cover')).getAttribute('src')).toBe('blob:preview');
    fireEvent.click(screen.getByRole('button', { name: 'Upload the cover' }));
    await screen.findByText('Cover saved.');
    expect(lastCall('PUT', '/api/admin/videos/vid_1/cover')).toMatchObject({ body: 'png bytes', headers: { 'content-type': 'image/png' } });
  });

  it('reorders episodes with the move buttons, keeping the focus, and saves the order at once', async () => {
    serve({
      'GET /api/admin/videos/vid_1': ok({ ...series, episodes }),
      'PUT /api/admin/videos/vid_1/episodes/order': ok([]),
      'POST /api/admin/episodes/ep_2/retranscode': ok({ ...episodes[1], status: 'pending' }),
    });
    open('/admin/content?series=vid_1');
    await screen.findByText('Failed · ffmpeg exited 1');
    // The first has no "up", the last no "down".
    expect(screen.queryByRole('button', { name: 'Move One up' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Move Three down' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Move Three up' }));
    screen.getByText(/Three is now at place 2\. The new order is not saved yet\./);
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Move Three up' }));
    fireEvent.click(screen.getByRole('button', { name: 'Move Three up' }));
    // At the top, its "down" button takes the focus.
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Move Three down' }));
    expect(calls.some((call) => call.method === 'PUT')).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Save the order' }));
    await screen.findByText('Order saved.');
    expect(lastCall('PUT', '/api/admin/videos/vid_1/episodes/order')!.body).toEqual({ episodeIds: ['ep_3', 'ep_1', 'ep_2'] });

    expect((screen.getByRole('button', { name: 'Transcode again: 1' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Transcode again: 2' }));
    await vi.waitFor(() => expect(lastCall('POST', '/api/admin/episodes/ep_2/retranscode')).toBeDefined());
    screen.getByLabelText('Video files');
    expect((screen.getByLabelText('First episode number') as HTMLInputElement).value).toBe('4');
  });

  it('says which line of a subtitle file was refused, replaces and removes subtitles', async () => {
    serve({
      'GET /api/admin/videos/vid_1': ok({ ...series, episodes }),
      'GET /api/admin/episodes/ep_1/subtitles': ok([{ episodeId: 'ep_1', lang: 'en', label: 'English', cues: 3, bytes: 120, uploadedAt: '2026-11-20T10:00:00.000Z' }]),
      'PUT /api/admin/episodes/ep_1/subtitles/es': (call) =>
        String(call.body).startsWith('WEBVTT')
          ? ok({ episodeId: 'ep_1', lang: 'es', label: 'Español', cues: 2, bytes: 80, uploadedAt: '2026-11-21T10:00:00.000Z' })
          : invalid({ file: 'line 3: "00:00:01,000 --> 00:00:02.000" is not a cue timing such as "00:00:01.000 --> 00:00:04.000"' }),
      'DELETE /api/admin/episodes/ep_1/subtitles/en': ok(null),
    });
    open('/admin/content?series=vid_1');
    fireEvent.click(await screen.findByRole('button', { name: 'Subtitles: 1' }));
    const dialog = await screen.findByRole('dialog', { name: 'Subtitles of episode 1' });
    await within(dialog).findByText('Now: 3 cues');
    const spanish = within(dialog).getByLabelText('WebVTT file in Español');
    fireEvent.change(spanish, { target: { files: [new File(['1\n00:00:01,000 --> 00:00:02.000\nHola\n'], 'es.srt')] } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Upload Español' }));
    const refusal = await within(dialog).findByRole('alert');
    expect(refusal.textContent).toBe('Refused at line 3: "00:00:01,000 --> 00:00:02.000" is not a cue timing such as "00:00:01.000 --> 00:00:04.000"');
    expect(spanish.getAttribute('aria-describedby')).toBe(refusal.id);
    // Sent as WebVTT whatever type the browser gave the file.
    expect(lastCall('PUT', '/api/admin/episodes/ep_1/subtitles/es')!.headers['content-type']).toBe('text/vtt');

    fireEvent.change(spanish, { target: { files: [new File(['WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHola\n'], 'es.vtt')] } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Upload Español' }));
    await within(dialog).findByText('Español: 2 cues saved.');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Remove English' }));
    await within(dialog).findByText('English: removed.');
    expect(lastCall('DELETE', '/api/admin/episodes/ep_1/subtitles/en')).toBeDefined();
  });
});
