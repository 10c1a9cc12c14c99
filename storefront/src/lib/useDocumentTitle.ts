import { useEffect } from 'react';

const SITE_TITLE = 'Cliffhanger — Short dramas';
// Search results show about this many characters of a description (the gateway cuts series pages' alike).
const DESCRIPTION_LENGTH = 160;
// index.html's own description, for every page without one of its own.
let siteDescription: string | undefined;

interface PageMeta {
  description?: string;
  /** The picture a shared link shows, e.g. a series' cover. */
  image?: string;
}

function tag(attribute: 'name' | 'property', key: string): HTMLMetaElement {
  let element = document.head.querySelector<HTMLMetaElement>(`meta[${attribute}="${key}"]`);
  if (!element) {
    element = document.createElement('meta');
    element.setAttribute(attribute, key);
    document.head.append(element);
  }
  return element;
}

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= DESCRIPTION_LENGTH ? flat : `${flat.slice(0, DESCRIPTION_LENGTH - 1).trimEnd()}…`;
}

/**
 * The page's title, description, canonical URL and sharing tags after a client-side navigation:
 * what the gateway writes into a series page's head for crawlers and link previews, for every page.
 */
export function useDocumentTitle(title: string | undefined, { description, image }: PageMeta = {}): void {
  useEffect(() => {
    document.title = title ? `${title} · Cliffhanger` : SITE_TITLE;
    const described = tag('name', 'description');
    siteDescription ??= described.content;
    const text = description?.trim() ? shorten(description) : (siteDescription ?? '');
    const url = window.location.origin + window.location.pathname;
    described.content = text;
    tag('property', 'og:title').content = document.title;
    tag('property', 'og:description').content = text;
    tag('property', 'og:url').content = url;
    if (image) tag('property', 'og:image').content = new URL(image, window.location.origin).href;
    else document.head.querySelector('meta[property="og:image"]')?.remove();
    let canonical = document.head.querySelector<HTMLLinkElement>('link[rel="canonical"]');
    if (!canonical) {
      canonical = document.createElement('link');
      canonical.rel = 'canonical';
      document.head.append(canonical);
    }
    canonical.href = url;
  }, [title, description, image]);
}
