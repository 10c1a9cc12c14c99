import { hydrate, render, type ComponentChild } from 'preact';
import { useLayoutEffect, useRef, useState } from 'react';

let takingOver = false;

/**
 * Renders the app into `app`. A page the gateway drew (entry-server.tsx) is hydrated when `sameAsDrawn`:
 * Preact takes its elements over as they are, without reading or writing their attributes, which on a
 * phone is most of the first render's cost. That is right only when this first render is the one the
 * gateway made: the same language, the same page facts, none of the viewer's own data (main.tsx holds
 * it back until this returns) and nothing the browser stored (`useDrawnFirst`). Otherwise the drawn
 * markup is rendered over (Preact mends every attribute that differs), and the splash is replaced.
 */
export function takeOver(app: HTMLElement, tree: unknown, sameAsDrawn: boolean): 'hydrated' | 'rendered' {
  const drawn = app.hasAttribute('data-server-rendered');
  // Preact's own types; the elements are the same as React's.
  const element = tree as ComponentChild;
  if (drawn && sameAsDrawn) {
    takingOver = true;
    try {
      hydrate(element, app);
    } finally {
      takingOver = false;
    }
    return 'hydrated';
  }
  if (!drawn) app.textContent = '';
  render(element, app);
  return 'rendered';
}

/**
 * A value read from the browser (storage, the landing) as a component first renders, that the gateway
 * cannot know: while the app takes a drawn page over, `drawn` (what the gateway drew with), then the
 * browser's own from the next render on. Anywhere else, the browser's own at once.
 */
export function useDrawnFirst<T>(drawn: T, read: () => T): T {
  const [value, setValue] = useState(() => (takingOver ? drawn : read()));
  const waiting = useRef(takingOver);
  useLayoutEffect(() => {
    if (!waiting.current) return;
    waiting.current = false;
    setValue(read());
    // Once, right after the first render: `read` is that render's.
  }, []);
  return value;
}
