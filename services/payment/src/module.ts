import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineModule, requireMail, type Background, type Logger } from '@cliffhanger/platform';
import { paymentAdminRoutes } from './admin-routes.ts';
import { paymentClientInProcess, paymentClientOverHttp, paymentInternalRoutes, type PaymentClient } from './client.ts';
import { subscribePaymentConsumers } from './events.ts';
import type { UnlockLedger } from './ports.ts';
import { createPaymentProvider } from './providers/index.ts';
import { paymentRoutes } from './routes.ts';
import { createPaymentService, type PaymentService } from './service.ts';

export const paymentMigrations = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'migrations');

const DUE_WORK_EVERY_MS = 60_000;

/**
 * Renewals, lost webhooks and owed unlock calls, now and every minute: one run at a time in this
 * process; across processes the renewal lease and the provider's idempotency keys keep each charge single.
 */
export function scheduleDueWork(payments: PaymentService, logger: Logger, everyMs = DUE_WORK_EVERY_MS): Background {
  let running: Promise<void> | null = null;
  const run = () => {
    running ??= payments
      .runDueWork()
      .catch((error: unknown) => logger.error({ err: error }, 'scheduled payment work failed'))
      .finally(() => {
        running = null;
      });
  };
  run();
  const timer = setInterval(run, everyMs).unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/** Plans, orders, card payments, VIP subscriptions and their renewals, provider webhooks (README.md). */
export const paymentModule = defineModule<PaymentClient>({
  name: 'payment',
  migrations: paymentMigrations,
  publicPrefixes: ['/api/plan', '/api/payment', '/api/webhook/payment', '/api/admin/plans', '/api/admin/orders', '/api/admin/subscriptions', '/sandbox'],
  needs: ['unlock'],
  init({ platform, client }) {
    const { config, logger } = platform;
    requireMail(config, 'payment', 'receipts');
    const setup = createPaymentProvider(config, platform.database, { logger });
    const payments = createPaymentService({
      ...platform,
      provider: setup.provider,
      unlock: client<UnlockLedger>('unlock'),
      graceDays: config.PAYMENT_GRACE_DAYS,
      publicUrl: config.PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`,
    });
    // Consumers subscribe before the platform starts delivering.
    subscribePaymentConsumers(platform.bus, payments);
    return {
      client: paymentClientInProcess(payments),
      routes: [paymentRoutes(payments, { publicUrl: config.PUBLIC_URL, browser: setup.browser }), paymentAdminRoutes(payments, config.ADMIN_TOKEN, { sandbox: setup.browser.provider === 'sandbox' }), ...(setup.routes ? [setup.routes] : [])],
      internalRoutes: [paymentInternalRoutes(payments)],
      background: () => {
        setup.start();
        const work = scheduleDueWork(payments, logger);
        return {
          async stop() {
            await work.stop();
            await setup.stop();
          },
        };
      },
    };
  },
  remoteClient: ({ http }) => paymentClientOverHttp(http()),
});
