import { appendEvent, type Config, type Database, type EventBus, type Logger, type RequestContext } from '@cliffhanger/platform';

/** The query fields that have a place of their own in statics.hit; the rest go to `params`. */
const OWN_FIELDS = new Set(['event', 'videoId', 'episodeId', 'value', 'currency', 'path', 'userId', 'token', 'fbclid', 'ttclid']);
const MAX_PARAMS = 20;
const MAX_LENGTH = 200;

export interface PixelConfig {
  config_key: 'facebook_pixel_id' | 'google_analytics' | 'tiktok_pixel' | 'bigo_pixel';
  config_value: string;
}

// The pixel takes any query (the edge's input rule lets it through): a value with control characters
// (a NUL cannot even be stored) is dropped, not recorded.
const clean = (value: string) => !/[\u0000-\u001f\u007f]/.test(value);
const text = (value: unknown, max = MAX_LENGTH): string | undefined =>
  typeof value === 'string' && value.length > 0 && clean(value) ? value.slice(0, max) : undefined;

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface AnalyticsDeps {
  config: Config;
  database: Database;
  bus: EventBus;
  logger: Logger;
}

export function createAnalyticsService({ config, database, bus, logger }: AnalyticsDeps) {
  const pixels: PixelConfig[] = (
    [
      ['facebook_pixel_id', config.FACEBOOK_PIXEL_ID],
      ['google_analytics', config.GOOGLE_ANALYTICS_ID],
      ['tiktok_pixel', config.TIKTOK_PIXEL_ID],
      ['bigo_pixel', config.BIGO_PIXEL_ID],
    ] as const
  ).flatMap(([config_key, config_value]) => (config_value ? [{ config_key, config_value }] : []));

  return {
    /** The advertising pixels the operator configured, for the storefront to load. */
    pixelConfig: (): PixelConfig[] => pixels,

    /**
     * Records one pixel request as statics.hit. A pixel is fire-and-forget: whatever the query
     * holds, the hit is kept as far as it makes sense and never fails the request.
     */
    async recordHit(context: RequestContext, query: Record<string, unknown>): Promise<void> {
      const event = text(query.event, 100);
      if (!event) return;
      const amount = Math.round(Number(query.value ?? 0) * 100);
      const params = Object.fromEntries(
        Object.entries(query)
          .filter(([key, value]) => !OWN_FIELDS.has(key) && key.length <= 50 && clean(key) && typeof value === 'string' && clean(value))
          .slice(0, MAX_PARAMS)
          .map(([key, value]) => [key, (value as string).slice(0, MAX_LENGTH)]),
      );
      // Images carry no headers: the storefront puts the referrer token and user id in the query.
      const userId = context.userId ?? (typeof query.userId === 'string' && uuid.test(query.userId) ? query.userId : null);
      const attribution = { ...context.attribution, referrerToken: context.attribution.referrerToken ?? text(query.token) ?? null };
      try {
        await database.transaction((tx) =>
          appendEvent(
            tx,
            { ...context, attribution },
            'statics.hit',
            {
              event,
              ...(text(query.videoId, 100) ? { videoId: text(query.videoId, 100) } : {}),
              ...(text(query.episodeId, 100) ? { episodeId: text(query.episodeId, 100) } : {}),
              value: { amount: Number.isSafeInteger(amount) && amount >= 0 ? amount : 0, currency: /^[A-Z]{3}$/.test(String(query.currency)) ? String(query.currency) : 'USD' },
              path: text(query.path) ?? '',
              params,
            },
            userId,
          ),
        );
        bus.nudge();
      } catch (error) {
        logger.warn({ err: error, event }, 'statics hit not recorded');
      }
    },
  };
}

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
