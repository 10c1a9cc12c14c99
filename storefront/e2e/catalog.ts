import { poll } from './harness';

interface Envelope<T> {
  code: number;
  data: T;
}

export interface CardLite {
  id: string;
  title: string;
}

export interface EpisodeLite {
  id: string;
  number: number;
  locked: boolean;
  ready: boolean;
}

export interface DemoCatalog {
  tagId: string;
  sectionId: string;
  /** A series whose first episode is free and ready to play. */
  playable: CardLite & { episodes: EpisodeLite[] };
  /** A series with a locked episode for a new guest. */
  withLock: CardLite & { locked: EpisodeLite };
}

async function call<T>(baseUrl: string, path: string): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`);
  const envelope = (await response.json()) as Envelope<T>;
  if (envelope.code !== 200) throw new Error(`${path} answered ${envelope.code}`);
  return envelope.data;
}

/** Waits for the backend's demo catalog: sections with series, and a first episode transcoded and ready. */
export async function waitForDemoCatalog(baseUrl: string, timeoutMs = 360_000): Promise<DemoCatalog> {
  const started = Date.now();
  const homepage = await poll('a homepage with series', timeoutMs, async () => {
    const data = await call<{ carousel: { items: CardLite[] }; sections: Array<{ id: string; items: CardLite[] }> }>(baseUrl, '/api/homepage');
    return data.sections.some((section) => section.items.length > 0) ? data : undefined;
  }, 3000);
  const tags = await call<Array<{ id: string }>>(baseUrl, '/api/tag');
  const cards = [...homepage.carousel.items, ...homepage.sections.flatMap((section) => section.items)];
  const unique = [...new Map(cards.map((card) => [card.id, card])).values()];

  const found = await poll('a ready first episode and a locked episode', timeoutMs - (Date.now() - started), async () => {
    let playable: DemoCatalog['playable'] | undefined;
    let withLock: DemoCatalog['withLock'] | undefined;
    for (const card of unique) {
      const video = await call<{ episodes: EpisodeLite[] }>(baseUrl, `/api/video?id=${encodeURIComponent(card.id)}`);
      const first = video.episodes[0];
      if (!playable && first && first.ready && !first.locked) playable = { ...card, episodes: video.episodes };
      const locked = video.episodes.find((episode) => episode.locked);
      if (!withLock && locked) withLock = { ...card, locked };
      if (playable && withLock) return { playable, withLock };
    }
    return undefined;
  }, 5000);

  const sectionId = homepage.sections.find((section) => section.items.length > 0)!.id;
  return { tagId: tags[0]!.id, sectionId, ...found };
}
