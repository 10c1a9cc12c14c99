import { act, cleanup, fireEvent, render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LazyImage } from './LazyImage';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('LazyImage', () => {
  it('goes from loading to loaded', () => {
    const { container } = render(<LazyImage src="/cover/ok.jpg" alt="Poster" eager />);
    const holder = container.querySelector('.lazy-image')!;
    expect(holder.getAttribute('data-state')).toBe('loading');
    fireEvent.load(container.querySelector('img')!);
    expect(holder.getAttribute('data-state')).toBe('loaded');
  });

  it('retries a failing image 3 times, then shows the error state', () => {
    vi.useFakeTimers();
    const { container } = render(<LazyImage src="/cover/broken.jpg" alt="Poster" eager />);
    const holder = container.querySelector('.lazy-image')!;
    const attempts = new Set<Element>();
    for (let attempt = 0; attempt < 4; attempt++) {
      expect(holder.getAttribute('data-state')).toBe('loading');
      const image = container.querySelector('img')!;
      attempts.add(image);
      fireEvent.error(image);
      act(() => vi.runAllTimers());
    }
    expect(attempts.size).toBe(4);
    expect(holder.getAttribute('data-state')).toBe('error');
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('[role="img"]')?.getAttribute('aria-label')).toBe('Poster');
  });

  it('shows the fallback at once when there is no source yet', () => {
    const { container } = render(<LazyImage src="" alt="Poster" eager />);
    expect(container.querySelector('.lazy-image')!.getAttribute('data-state')).toBe('error');
    expect(container.querySelector('img')).toBeNull();
  });
});
