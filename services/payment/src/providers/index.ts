import { createHmac } from 'node:crypto';
import type { Router } from 'express';
import { ConfigError, serverSecret, type Config, type Database, type Logger } from '@cliffhanger/platform';
import type { PaymentProvider } from './provider.ts';
import { createSandboxProvider } from './sandbox-provider.ts';
import { createSandboxRouter } from './sandbox-routes.ts';
import { createStripeProvider } from './stripe-provider.ts';

export * from './provider.ts';
export { createSandboxProvider, type SandboxOptions, type SandboxPaymentProvider, type TokenAnswer } from './sandbox-provider.ts';
export { createSandboxRouter } from './sandbox-routes.ts';
export { createStripeProvider, type StripeProviderOptions } from './stripe-provider.ts';
export { signWebhook } from './stripe-events.ts';
export { TEST_CARDS } from './test-cards.ts';

/** The payment provider a process runs, with what goes around it. */
export interface PaymentSetup {
  provider: PaymentProvider;
  /** The sandbox's tokenizer and pages, to mount at the site's root; null with Stripe, so none of them is ever served there. */
  routes: Router | null;
  /** What the storefront's card form needs to tokenize: Stripe Elements' key, or the sandbox tokenizer's address. */
  browser: { provider: 'stripe'; publishableKey: string } | { provider: 'sandbox'; tokenUrl: string };
  /** Starts the provider's own background work (the sandbox's webhooks), once the process serves. */
  start(): void;
  stop(): Promise<void>;
}

export interface PaymentSetupOptions {
  logger: Logger;
  /** Origin of the sandbox's pages in the links it hands out; default PUBLIC_URL, else same-origin relative links. */
  publicUrl?: string;
  /**
   * Where the sandbox posts its events, null for nowhere. Default: the payment webhook route at
   * PUBLIC_URL, else at this process's own HOST:PORT (embedded mode, where the gateway is in process).
   */
  webhookUrl?: string | null;
}

/**
 * The sandbox signs its webhooks with a key derived from MEDIA_SECRET (HMAC with its own label, so
 * neither reveals the other): shared by every process that shares MEDIA_SECRET, kept under DATA_DIR
 * on a laptop, with no extra setting to forget.
 */
function sandboxWebhookSecret(config: Config): string {
  return `whsec_${createHmac('sha256', serverSecret(config, 'MEDIA_SECRET')).update('cliffhanger sandbox webhook signing').digest('base64url')}`;
}

function ownOrigin(config: Pick<Config, 'HOST' | 'PORT'>): string {
  const host = ['0.0.0.0', '::', ''].includes(config.HOST) ? '127.0.0.1' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  return `http://${host}:${config.PORT}`;
}

/**
 * Stripe when STRIPE_SECRET_KEY is set (the sandbox then never runs: asking for it is a config
 * error), the sandbox otherwise. Production refuses the sandbox unless PAYMENT_PROVIDER=sandbox
 * asks for it on purpose, so a forgotten key never takes fake payments for real orders.
 */
export function createPaymentProvider(config: Config, database: Database, options: PaymentSetupOptions): PaymentSetup {
  const wanted = config.PAYMENT_PROVIDER ?? (config.STRIPE_SECRET_KEY ? 'stripe' : 'sandbox');
  if (wanted === 'stripe') {
    const { STRIPE_SECRET_KEY: secretKey, STRIPE_WEBHOOK_SECRET: webhookSecret, STRIPE_PUBLISHABLE_KEY: publishableKey } = config;
    if (!secretKey) throw new ConfigError('config: STRIPE_SECRET_KEY: required when PAYMENT_PROVIDER=stripe');
    if (!webhookSecret) throw new ConfigError('config: STRIPE_WEBHOOK_SECRET: required with STRIPE_SECRET_KEY');
    if (!publishableKey) throw new ConfigError('config: STRIPE_PUBLISHABLE_KEY: required with STRIPE_SECRET_KEY');
    return {
      provider: createStripeProvider({ secretKey, webhookSecret, apiBase: config.STRIPE_API_BASE }),
      routes: null,
      browser: { provider: 'stripe', publishableKey },
      start: () => {},
      stop: async () => {},
    };
  }
  if (config.STRIPE_SECRET_KEY) throw new ConfigError('config: PAYMENT_PROVIDER: the sandbox never runs while STRIPE_SECRET_KEY is set');
  if (config.NODE_ENV === 'production' && config.PAYMENT_PROVIDER !== 'sandbox') {
    throw new ConfigError('config: STRIPE_SECRET_KEY: required in production (PAYMENT_PROVIDER=sandbox takes test payments on purpose)');
  }
  const publicUrl = (options.publicUrl ?? config.PUBLIC_URL ?? '').replace(/\/+$/, '');
  const webhookUrl =
    options.webhookUrl === undefined ? `${(config.PUBLIC_URL ?? ownOrigin(config)).replace(/\/+$/, '')}/api/webhook/payment/stripe` : options.webhookUrl;
  const provider = createSandboxProvider(database, { publicUrl, webhookUrl, webhookSecret: sandboxWebhookSecret(config), logger: options.logger });
  return {
    provider,
    routes: createSandboxRouter(provider),
    browser: { provider: 'sandbox', tokenUrl: `${publicUrl}/sandbox/v1/tokens` },
    start: () => provider.start(),
    stop: () => provider.stop(),
  };
}
