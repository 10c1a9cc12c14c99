import { cleanup, render } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useDocumentTitle } from './useDocumentTitle';

function Page({ title, description, image }: { title?: string; description?: string; image?: string }) {
  useDocumentTitle(title, { description, image });
  return null;
}

const meta = (selector: string) => document.head.querySelector<HTMLMetaElement>(selector)?.content;

beforeEach(() => {
  document.head.innerHTML = '<meta name="description" content="Short dramas." /><meta property="og:title" content="Cliffhanger" />';
});
afterEach(cleanup);

describe('a page’s title and sharing tags after a client-side navigation', () => {
  it('name the series, describe it and show its cover, as the served head of a series page does', () => {
    render(<Page title="The Heir Returns" description={`A heir comes home. ${'Then more. '.repeat(30)}`} image="/media/public/covers/heir.jpg" />);
    expect(document.title).toBe('The Heir Returns · Cliffhanger');
    expect(meta('meta[name="description"]')).toMatch(/^A heir comes home\. Then more\..{100,}…$/);
    expect(meta('meta[name="description"]')!.length).toBeLessThanOrEqual(160);
    expect(meta('meta[property="og:title"]')).toBe('The Heir Returns · Cliffhanger');
    expect(meta('meta[property="og:image"]')).toBe(`${window.location.origin}/media/public/covers/heir.jpg`);
    expect(meta('meta[property="og:url"]')).toBe(window.location.origin + window.location.pathname);
    expect(document.head.querySelector<HTMLLinkElement>('link[rel="canonical"]')!.href).toBe(window.location.origin + window.location.pathname);
  });

  it('fall back to the site’s own title and description on a page without them, and drop a cover left behind', () => {
    const { rerender } = render(<Page title="The Heir Returns" description="A heir comes home." image="/cover.jpg" />);
    rerender(<Page />);
    expect(document.title).toBe('Cliffhanger — Short dramas');
    expect(meta('meta[name="description"]')).toBe('Short dramas.');
    expect(meta('meta[property="og:description"]')).toBe('Short dramas.');
    expect(document.head.querySelector('meta[property="og:image"]')).toBeNull();
  });
});
