import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSite, type Site } from '@cliffhanger/platform/testing';
import { catalogModule } from '@cliffhanger/catalog';
import { transcoderModule } from '@cliffhanger/transcoder';
import { unlockModule } from '@cliffhanger/unlock';
import { userModule } from '@cliffhanger/user';
import { paymentModule } from '../src/index.ts';

// Stripe configured. Nothing here reaches Stripe: the API base is a closed local port, so a call
// made by mistake fails instead of leaving the machine.
const stripeEnv = {
  STRIPE_SECRET_KEY: 'sk_test_x',
  STRIPE_WEBHOOK_SECRET: 'whsec_x',
  STRIPE_PUBLISHABLE_KEY: 'pk_test_x',
  STRIPE_API_BASE: 'http://127.0.0.1:9',
};

let site: Site;
beforeAll(async () => {
  site = await startSite({ modules: [userModule, catalogModule, unlockModule, transcoderModule, paymentModule], env: stripeEnv, background: false });
});
afterAll(() => site?.close());

describe('a site with Stripe configured', () => {
  it('tells the card form to use Stripe Elements with the publishable key, and nothing secret', async () => {
    const config = await site.call('GET', '/api/payment/config');
    expect(config).toMatchObject({ status: 200, code: 200 });
    expect(config.data).toEqual({ provider: 'stripe', publishableKey: 'pk_test_x' });
    expect(JSON.stringify(config)).not.toMatch(/sk_test_x|whsec_x/);
  });

  it('serves none of the sandbox: its tokenizer and pages are plain 404s', async () => {
    const body = JSON.stringify({ card: { number: '4242424242424242', exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123' } });
    const tokens = await fetch(`${site.url}/sandbox/v1/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(tokens.status).toBe(404);
    expect(await tokens.text()).not.toContain('tok_');
    expect((await fetch(`${site.url}/sandbox/paypal/pi_any`)).status).toBe(404);
  });
});
