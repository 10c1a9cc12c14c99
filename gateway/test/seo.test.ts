import { describe, expect, it } from 'vitest';
import { jsonScript, withHead } from '../src/storefront/seo.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

const page = '<!doctype html><html lang="en"><head><title>Cliffhanger</title><meta name="description" content="Short dramas." /></head><body><div id="app"></div></body></html>';

describe('a page\'s head', () => {
  it('keeps a title with "$&", "$`" or "$\'" as typed: they are not replacement patterns', () => {
    const title = 'Love $& Lies: $` the $\' sequel $$';
    const served = withHead(page, { title, description: 'Cost: $1 & more', url: 'https://shorts.example.com/videos/x', type: 'video.tv_show' }, [jsonScript('loader-data', { title })]);
    expect(served).toContain(`<title>Love $&amp; Lies: $\` the $&#39; sequel $$</title>`);
    expect(served).toContain('<meta name="description" content="Cost: $1 &amp; more" />');
    expect(JSON.parse(/<script type="application\/json" id="loader-data">([^<]*)<\/script>/.exec(served)![1]!)).toEqual({ title });
    // One head, whole: nothing of the page was pasted into it.
    expect(served.match(/<head>/g)).toHaveLength(1);
    expect(served.endsWith('<body><div id="app"></div></body></html>')).toBe(true);
  });
});
