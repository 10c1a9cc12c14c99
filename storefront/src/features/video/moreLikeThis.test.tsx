import { act, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Video, VideoCard } from '../../api/types';
import { ok, renderWithApp, serveApi, type ServedApi } from '../../testing/renderWithApp';
import { MoreLikeThis } from './MoreLikeThis';

const card = (id: string, tags: string[]): VideoCard => ({ id, title: `Series ${id}`, cover: `/covers/${id}.jpg`, tags, episodeCount: 10, playCount: 5 }) as VideoCard;
const homepage = {
  carousel: { items: [card('a', ['romance']), card('self', ['romance', 'revenge'])] },
  sections: [{ id: 'new', title: 'New', items: [card('b', ['comedy']), card('c', ['revenge', 'romance']), card('d', ['revenge']), card('a', ['romance'])] }],
};
const video = { id: 'self', title: 'Self', tags: ['romance', 'revenge'] } as Video;

let api: ServedApi;
const homepageCalls = () => api.calls.filter((call) => call.path === '/api/homepage').length;
let observed: { callback: IntersectionObserverCallback; options?: IntersectionObserverInit }[] = [];
beforeEach(() => {
  observed = [];
  api = serveApi({ '/api/homepage': ok(homepage), '/api/user': ok({ id: 'g1', kind: 'guest', coins: 0, vip: null }) });
  vi.stubGlobal(
    'IntersectionObserver',
    class {
      constructor(callback: IntersectionObserverCallback, options?: IntersectionObserverInit) {
        observed.push({ callback, options });
      }
      observe() {}
      disconnect() {}
    },
  );
});

describe('more like this', () => {
  it('asks for the picks only once its row nears the screen, then shows the others sharing most categories first', async () => {
    const { container } = renderWithApp(<MoreLikeThis video={video} />);
    await waitFor(() => expect(observed).not.toHaveLength(0));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(homepageCalls()).toBe(0);
    expect(container.querySelector('.more-like-this')!.childElementCount).toBe(0);
    expect(observed.at(-1)!.options?.rootMargin).toBe('0px 0px 600px 0px');

    act(() => observed.at(-1)!.callback([{ isIntersecting: true } as IntersectionObserverEntry], {} as IntersectionObserver));
    const row = await screen.findByRole('region', { name: 'More like this' });
    expect(homepageCalls()).toBe(1);
    const titles = [...row.querySelectorAll('li')].map((item) => item.textContent);
    // c shares both categories, a and d one each (in the home page's order), b none; itself and the repeat of a are left out.
    expect(titles.map((text) => /Series (\w)/.exec(text ?? '')?.[1])).toEqual(['c', 'a', 'd', 'b']);
  });
});
