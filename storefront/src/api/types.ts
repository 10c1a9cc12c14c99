import type { Money } from '../lib/format';

export type { Money };

export interface Vip {
  planId: string;
  renewsAt: string;
  cancelAtPeriodEnd: boolean;
}

export interface UserSettings {
  /** Playing on into a locked episode spends its coins without asking. */
  autoUnlock: boolean;
}

export interface User {
  id: string;
  kind: 'guest' | 'member';
  email: string | null;
  /** The member proved the email theirs (a mailed link, a password reset, Google or Facebook). */
  emailVerified: boolean;
  /** The spendable total, paid and bonus together. */
  coins: number;
  /** The part of `coins` that may expire; spent first. */
  bonusCoins: number;
  vip: Vip | null;
  settings: UserSettings;
}

/** Where the viewer stands with the daily check-in; `nextAt` is when the next one opens (now, while today's is open). */
export interface CheckinStatus {
  checkedInToday: boolean;
  /** Days in a row, 0 once a day was missed. */
  streak: number;
  /** Bonus coins the next check-in pays. */
  nextReward: number;
  nextAt: string;
}

/** A check-in made: the calendar day it claimed, its streak, its bonus coins and the balance afterwards. */
export interface Checkin {
  day: string;
  streak: number;
  coinsAwarded: number;
  balance: number;
  nextAt: string;
}

export interface Tag {
  id: string;
  name: string;
}

export interface VideoCard {
  id: string;
  title: string;
  cover: string;
  tags: string[];
  episodeCount: number;
  playCount: number;
}

export interface HomeSection {
  id: string;
  title: string;
  items: VideoCard[];
}

export interface Homepage {
  carousel: { title: string; items: VideoCard[] };
  sections: HomeSection[];
}

export interface EpisodeSummary {
  id: string;
  number: number;
  title: string;
  durationSeconds: number;
  locked: boolean;
  ready: boolean;
}

export interface ResumePoint {
  episodeId: string;
  positionSeconds: number;
}

export interface Video extends VideoCard {
  description: string;
  freeEpisodes: number;
  priceCoins: number;
  favorited: boolean;
  /** Where this viewer stopped in the series, or null. */
  resume: ResumePoint | null;
  episodes: EpisodeSummary[];
}

export interface Episode {
  id: string;
  videoId: string;
  number: number;
  title: string;
  durationSeconds: number;
  nextEpisodeId: string | null;
  playback: { url: string; expiresAt: string };
  /** WebVTT tracks, [] when none. */
  subtitles: Subtitle[];
}

/** One language's subtitles: `lang` an interface language code (en, es, fy, dy, pt), `label` its own name, `url` the grant-protected WebVTT file. */
export interface Subtitle {
  lang: string;
  label: string;
  url: string;
}

export interface FavoriteItem extends VideoCard {
  favoritedAt: string;
}

export interface HistoryItem {
  video: VideoCard;
  episode: { id: string; number: number };
  positionSeconds: number;
  updatedAt: string;
}

export interface UnlockedItem {
  video: VideoCard;
  episodes: number[];
}

export interface Plan {
  id: string;
  kind: 'coins' | 'vip';
  title: string;
  price: Money;
  coins?: number;
  bonusCoins?: number;
  periodDays?: number;
  /** The one discounted pack of an account that has not paid yet. */
  firstPurchaseOnly?: boolean;
}

export interface Order {
  id: string;
  planId: string;
  price: Money;
  status: OrderStatus;
  createdAt: string;
}

export type OrderStatus = 'created' | 'succeeded' | 'failed' | 'canceled' | 'refunded';

export interface Subscription {
  planId: string;
  status: 'active' | 'past_due' | 'canceled' | 'expired';
  renewsAt: string;
  cancelAtPeriodEnd: boolean;
}

export interface PaymentResult {
  orderId: string;
  status: 'succeeded' | 'requires_action' | 'failed';
  /** With requires_action: the payment's client secret, for Stripe.js's 3-D Secure challenge in the page (handleNextAction). */
  clientSecret?: string;
  /** With requires_action: the same challenge as a page the browser leaves for, when the provider has one (the sandbox). */
  actionUrl?: string;
  /** Why a payment failed, readable by the user. */
  message?: string;
}

export interface ReportConfig {
  config_key: 'facebook_pixel_id' | 'google_analytics' | 'tiktok_pixel' | 'bigo_pixel' | string;
  config_value: string;
}
