import { waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { takeOver, useDrawnFirst } from './takeover';

/** A badge whose state the browser knows and the gateway does not (as "continue watching" is). */
function Badge({ stored }: { stored: string }) {
  const state = useDrawnFirst('new', () => stored);
  return (
    <p className={`badge badge--${state}`} data-state={state}>
      {state}
    </p>
  );
}

const shown = (app: HTMLElement) => {
  const badge = app.firstElementChild as HTMLElement;
  return { className: badge.className, state: badge.dataset.state, drawn: badge.getAttribute('data-drawn'), text: badge.textContent };
};
const returning = { className: 'badge badge--returning', state: 'returning', drawn: null, text: 'returning' };

function page(markup: string | null): HTMLElement {
  document.body.innerHTML = markup === null ? '<div id="app"><div class="splash"></div></div>' : `<div id="app" data-server-rendered>${markup}</div>`;
  return document.getElementById('app')!;
}

afterEach(() => {
  document.body.innerHTML = '';
});

describe('takeOver', () => {
  it('hydrates a drawn page, whose elements it keeps, and then shows what the browser knows in them', async () => {
    const app = page('<p class="badge badge--new" data-state="new">new</p>');
    const drawn = app.firstElementChild;
    expect(takeOver(app, <Badge stored="returning" />, true)).toBe('hydrated');
    // Hydration sets no attribute: the value read from the browser comes in the render after.
    await waitFor(() => expect(shown(app)).toEqual(returning));
    expect(app.firstElementChild).toBe(drawn);
  });

  it('renders over a page drawn otherwise, mending every attribute', () => {
    const app = page('<p class="badge badge--new" data-state="new" data-drawn="yes">new</p>');
    const drawn = app.firstElementChild;
    expect(takeOver(app, <Badge stored="returning" />, false)).toBe('rendered');
    expect(shown(app)).toEqual(returning);
    expect(app.firstElementChild).toBe(drawn);
  });

  it('replaces the splash, and reads the browser at once', () => {
    const app = page(null);
    expect(takeOver(app, <Badge stored="returning" />, true)).toBe('rendered');
    expect(shown(app)).toEqual(returning);
    expect(app.querySelector('.splash')).toBeNull();
  });
});
