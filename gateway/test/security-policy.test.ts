import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSite, tempDir, type Site } from '@cliffhanger/platform/testing';
import { registry } from '../src/registry.ts';
import { storefrontHandler } from '../src/storefront/index.ts';

const stripeEnv = {
  STRIPE_SECRET_KEY: 'sk_test_x',
  STRIPE_WEBHOOK_SECRET: 'whsec_x',
  STRIPE_PUBLISHABLE_KEY: 'pk_test_x',
  // A closed local port: nothing in this suite may reach Stripe.
  STRIPE_API_BASE: 'http://127.0.0.1:9',
};

const dist = tempDir('storefront-dist-');
fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><div id="app"></div>');

const startGateway = (env: Record<string, string>) => startSite({ modules: registry.modules, env: { DEMO: '0', ...env }, pages: storefrontHandler(dist), background: false });

/** The Content-Security-Policy of the storefront's /order/easy page, directive by directive. */
async function pagePolicy(site: Site): Promise<Record<string, string[]>> {
  const response = await fetch(`${site.url}/order/easy?planId=coins-100`, { headers: { accept: 'text/html' } });
  expect(response.status).toBe(200);
  const header = response.headers.get('content-security-policy') ?? '';
  return Object.fromEntries(
    header
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...sources]) => [name!, sources]),
  );
}

describe('the content security policy', () => {
  let sandbox: Site;
  let stripe: Site;
  beforeAll(async () => {
    sandbox = await startGateway({});
    stripe = await startGateway(stripeEnv);
  });
  afterAll(async () => {
    await sandbox?.close();
    await stripe?.close();
  });

  it('without Stripe allows scripts, connections and frames from this site only', async () => {
    const policy = await pagePolicy(sandbox);
    expect(policy['default-src']).toEqual(["'self'"]);
    expect(policy['script-src']).toEqual(["'self'"]);
    expect(policy['connect-src']).toEqual(["'self'"]);
    expect(policy['frame-src']).toBeUndefined();
    expect(Object.values(policy).flat().join(' ')).not.toContain('stripe');
  });

  it('with Stripe configured also allows Stripe.js, its Elements and 3-D Secure frames, and its API', async () => {
    const policy = await pagePolicy(stripe);
    expect(policy['default-src']).toEqual(["'self'"]);
    expect(policy['script-src']).toEqual(["'self'", 'https://js.stripe.com']);
    expect(policy['frame-src']).toEqual(["'self'", 'https://js.stripe.com', 'https://hooks.stripe.com']);
    expect(policy['connect-src']).toEqual(["'self'", 'https://api.stripe.com']);
    // Everything else is the policy without Stripe.
    const others = (policy: Record<string, string[]>) =>
      Object.fromEntries(Object.entries(policy).filter(([name]) => !['script-src', 'frame-src', 'connect-src'].includes(name)));
    expect(others(policy)).toEqual(others(await pagePolicy(sandbox)));
  });

  it('with Stripe configured the sandbox tokenizer is not there: POST /sandbox/v1/tokens is a 404', async () => {
    const body = JSON.stringify({ card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' } });
    const answer = await fetch(`${stripe.url}/sandbox/v1/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(answer.status).toBe(404);
    expect((await fetch(`${sandbox.url}/sandbox/v1/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status).toBe(200);
  });
});
