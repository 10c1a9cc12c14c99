/** The demo catalog a fresh `npm start` fills in: what a short-drama site's shelves look like. */

export interface DemoSeries {
  id: string;
  title: string;
  description: string;
  tags: string[];
  /** Colour of its cover and episodes, 0-360 on the colour wheel. */
  hue: number;
  episodes: number;
  freeEpisodes: number;
  priceCoins: number;
}

export interface DemoCatalog {
  /** Categories in display order. */
  tags: string[];
  series: DemoSeries[];
  sections: { id: string; title: string; kind: 'carousel' | 'section'; videoIds: string[] }[];
  episodeSeconds: number;
  width: number;
  height: number;
}

const series: DemoSeries[] = [
  {
    id: 'the-billionaires-contract-bride',
    title: "The Billionaire's Contract Bride",
    description:
      "To save her father's company, Lena signs a one-year marriage contract with the coldest CEO in the city. Rule one: never fall in love. Rule two: never ask about the locked room on the top floor.",
    tags: ['Romance', 'CEO'],
    hue: 340,
    episodes: 12,
    freeEpisodes: 5,
    priceCoins: 40,
  },
  {
    id: 'the-alpha-kings-rejected-mate',
    title: "The Alpha King's Rejected Mate",
    description:
      'Rejected by her mate on the night of her first shift, Aria flees the Silver Moon pack. Three years later the Alpha King who rules every pack comes hunting for her, and he swears the Moon Goddess chose her for him.',
    tags: ['Werewolf', 'Romance'],
    hue: 220,
    episodes: 10,
    freeEpisodes: 4,
    priceCoins: 45,
  },
  {
    id: 'rebirth-of-the-abandoned-heiress',
    title: 'Rebirth of the Abandoned Heiress',
    description:
      'Betrayed by her fiancé and her adopted sister, Qiao Xin dies in a fire on her wedding day and wakes up eighteen again, a month before the engagement. This time she knows every lie. This time she strikes first.',
    tags: ['Rebirth', 'Revenge'],
    hue: 20,
    episodes: 12,
    freeEpisodes: 5,
    priceCoins: 35,
  },
  {
    id: 'palace-of-jade-secrets',
    title: 'Palace of Jade Secrets',
    description:
      'A servant girl with a poisoner’s gift enters the Forbidden Palace to avenge her mother. Between a scheming empress and a prince who sees through every mask, one wrong cup of tea means death.',
    tags: ['Palace', 'Revenge'],
    hue: 150,
    episodes: 10,
    freeEpisodes: 4,
    priceCoins: 50,
  },
  {
    id: 'revenge-of-the-forgotten-wife',
    title: 'Revenge of the Forgotten Wife',
    description:
      'After five years of silent marriage, Claire finds the divorce papers on her birthday. She signs, disappears, and returns as the masked designer all of fashion is fighting over, her ex-husband included.',
    tags: ['Revenge', 'Romance'],
    hue: 300,
    episodes: 10,
    freeEpisodes: 5,
    priceCoins: 40,
  },
  {
    id: 'the-hidden-heir-of-the-chen-family',
    title: 'The Hidden Heir of the Chen Family',
    description:
      'Mocked as the useless live-in son-in-law of the Lin family, Chen Feng washes dishes and swallows every insult. Nobody at the table knows that one phone call from him could buy the whole city.',
    tags: ['CEO', 'Revenge'],
    hue: 45,
    episodes: 11,
    freeEpisodes: 5,
    priceCoins: 30,
  },
  {
    id: 'moonlight-luna-bound-to-the-beta',
    title: 'Moonlight Luna: Bound to the Beta',
    description:
      'Selene, an omega, was never meant to be anyone’s Luna. Then the blood moon marks her, and the Beta sworn to guard his future Alpha’s mate cannot stop wanting her for himself.',
    tags: ['Werewolf'],
    hue: 260,
    episodes: 10,
    freeEpisodes: 4,
    priceCoins: 45,
  },
  {
    id: 'the-crown-princes-runaway-bride',
    title: "The Crown Prince's Runaway Bride",
    description:
      "On the eve of the royal wedding the general's daughter escapes over the palace wall, straight into the arms of a wandering swordsman who turns out to be the very prince she fled.",
    tags: ['Palace', 'Romance'],
    hue: 110,
    episodes: 10,
    freeEpisodes: 5,
    priceCoins: 40,
  },
];

export const demoCatalog: DemoCatalog = {
  tags: ['Romance', 'Revenge', 'CEO', 'Werewolf', 'Rebirth', 'Palace'],
  series,
  sections: [
    {
      id: 'featured',
      title: 'Featured Videos',
      kind: 'carousel',
      videoIds: [
        'the-billionaires-contract-bride',
        'the-alpha-kings-rejected-mate',
        'palace-of-jade-secrets',
        'revenge-of-the-forgotten-wife',
        'rebirth-of-the-abandoned-heiress',
      ],
    },
    {
      id: 'asian-stories',
      title: 'Asian Stories',
      kind: 'section',
      videoIds: [
        'rebirth-of-the-abandoned-heiress',
        'palace-of-jade-secrets',
        'the-hidden-heir-of-the-chen-family',
        'the-crown-princes-runaway-bride',
      ],
    },
    {
      id: 'trending-now',
      title: 'Trending Now',
      kind: 'section',
      videoIds: ['the-alpha-kings-rejected-mate', 'revenge-of-the-forgotten-wife', 'moonlight-luna-bound-to-the-beta', 'the-billionaires-contract-bride'],
    },
    {
      id: 'more-recommendations',
      title: 'More Recommendations',
      kind: 'section',
      videoIds: series.map((s) => s.id),
    },
  ],
  // Long enough to show a few segments and rung switches; short enough that ~85 episodes
  // transcode in the background of a 2-core laptop within the first half hour.
  episodeSeconds: 20,
  width: 480,
  height: 854,
};
