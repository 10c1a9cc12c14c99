import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Conflict, Invalid, NotFound } from '@cliffhanger/platform';
import { signWebhook, TEST_CARDS, WebhookSignatureError, type ChargeResult, type PaymentProvider } from '../src/providers/index.ts';

/** One adapter, ready to charge, with what a browser and the provider's servers would do around it. */
export interface PaymentHarness {
  provider: PaymentProvider;
  /** The ConfirmationToken the browser's `createConfirmationToken` gives for a test card number. */
  tokenize(cardNumber: string): Promise<string>;
  /** The legacy card token `createToken` gave (pages loaded before confirmation tokens still send one). */
  legacyToken(cardNumber: string): Promise<string>;
  /** What the customer does in the page's challenge (`handleNextAction` with the client secret): passes or fails authentication. */
  authenticate(action: Extract<ChargeResult, { status: 'requires_action' }>, passed: boolean): Promise<void>;
  /** How many payments the provider holds for an order. */
  countPayments(orderId: string): Promise<number>;
  /** The secret the provider's webhooks are signed with. */
  webhookSecret: string;
  close(): Promise<void>;
}

const cards = TEST_CARDS;

/** The payment-provider contract: every PaymentProvider adapter passes these. */
export function paymentContract(adapter: string, open: () => Promise<PaymentHarness>) {
  describe(`payment provider contract: ${adapter}`, () => {
    let harness: PaymentHarness;
    let provider: PaymentProvider;
    beforeAll(async () => {
      harness = await open();
      provider = harness.provider;
    });
    afterAll(() => harness?.close());

    const amount = { amount: 999, currency: 'usd' };
    const customer = { userId: `user-${randomUUID()}`, email: 'viewer@example.com', name: 'Ada Viewer' };

    async function pay(card: string, overrides: { orderId?: string; idempotencyKey?: string; saveForLater?: boolean; token?: string } = {}) {
      const orderId = overrides.orderId ?? `order-${randomUUID()}`;
      const result = await provider.charge({
        orderId,
        amount,
        paymentToken: overrides.token ?? (await harness.tokenize(card)),
        customer,
        idempotencyKey: overrides.idempotencyKey ?? randomUUID(),
        saveForLater: overrides.saveForLater ?? false,
        returnUrl: `https://shop.example/order/result?orderId=${orderId}`,
      });
      return { orderId, result };
    }

    function succeeded(result: ChargeResult) {
      if (result.status !== 'succeeded') throw new Error(`expected success, got ${JSON.stringify(result)}`);
      return result;
    }

    /** A card saved through a challenge the customer passed. */
    async function saveThroughChallenge(card: string) {
      const { result } = await pay(card, { saveForLater: true });
      if (result.status !== 'requires_action') throw new Error(`expected an action, got ${JSON.stringify(result)}`);
      await harness.authenticate(result, true);
      return succeeded(await provider.retrieve(result.paymentId)).savedMethod!;
    }

    it('charges a good card and keeps it for renewals when asked', async () => {
      const { result } = await pay(cards.visa, { saveForLater: true });
      const charged = succeeded(result);
      expect(charged.savedMethod).toEqual({ customerId: expect.any(String), paymentMethodId: expect.any(String) });
      expect(await provider.retrieve(charged.paymentId)).toEqual(charged);
    });

    it('still charges a legacy card token, for pages loaded before confirmation tokens', async () => {
      const { result } = await pay(cards.visa, { token: await harness.legacyToken(cards.visa), saveForLater: true });
      expect(succeeded(result).savedMethod).toEqual({ customerId: expect.any(String), paymentMethodId: expect.any(String) });
    });

    it('refuses a confirmation token used once already, as a failed payment', async () => {
      const token = await harness.tokenize(cards.visa);
      await pay(cards.visa, { token });
      const { result } = await pay(cards.visa, { token });
      expect(result).toMatchObject({ status: 'failed', reason: 'token_already_used', hardDecline: true });
    });

    it('keeps no card when the customer did not ask', async () => {
      const { result } = await pay(cards.visa);
      expect(succeeded(result).savedMethod).toBeNull();
    });

    it.each([
      ['a declined card', cards.declined, 'card_declined', false],
      ['a card without funds', cards.insufficientFunds, 'insufficient_funds', false],
      ['a wrong CVC', cards.incorrectCvc, 'incorrect_cvc', false],
      ['a lost card', cards.lost, 'lost_card', true],
      ['a stolen card', cards.stolen, 'stolen_card', true],
    ])('fails %s with its reason, hard or soft', async (_name, card, reason, hardDecline) => {
      const { result } = await pay(card, { saveForLater: true });
      expect(result).toMatchObject({ status: 'failed', reason, hardDecline });
      if (result.paymentId) expect(await provider.retrieve(result.paymentId)).toEqual(result);
    });

    it('asks a card that needs authentication to authenticate, then succeeds once the customer passes', async () => {
      const { result } = await pay(cards.authenticateOnce, { saveForLater: true });
      expect(result).toMatchObject({ status: 'requires_action', clientSecret: expect.stringMatching(/^pi_\w+_secret_\w+$/) });
      if (result.status !== 'requires_action') return;
      expect(await provider.retrieve(result.paymentId)).toEqual(result);
      await harness.authenticate(result, true);
      const settled = succeeded(await provider.retrieve(result.paymentId));
      expect(settled.savedMethod).not.toBeNull();
    });

    it('fails the payment when the customer fails authentication', async () => {
      const { result } = await pay(cards.authenticateOnce);
      if (result.status !== 'requires_action') throw new Error(`expected an action, got ${JSON.stringify(result)}`);
      await harness.authenticate(result, false);
      expect(await provider.retrieve(result.paymentId)).toMatchObject({ status: 'failed', reason: 'authentication_failed', hardDecline: false });
    });

    it('a replayed pay call charges nothing and answers the first result', async () => {
      const orderId = `order-${randomUUID()}`;
      const idempotencyKey = randomUUID();
      const token = await harness.tokenize(cards.visa);
      const first = await pay(cards.visa, { orderId, idempotencyKey, token, saveForLater: true });
      const again = await pay(cards.visa, { orderId, idempotencyKey, token, saveForLater: true });
      expect(again.result).toEqual(first.result);
      expect(await harness.countPayments(orderId)).toBe(1);
    });

    it('ten pay calls at once under one key make one payment and one answer', async () => {
      const orderId = `order-${randomUUID()}`;
      const idempotencyKey = randomUUID();
      const token = await harness.tokenize(cards.visa);
      const results = await Promise.all(Array.from({ length: 10 }, () => pay(cards.visa, { orderId, idempotencyKey, token })));
      for (const { result } of results) expect(result).toEqual(results[0]!.result);
      expect(results[0]!.result.status).toBe('succeeded');
      expect(await harness.countPayments(orderId)).toBe(1);
    });

    it('a replayed decline stays the same decline', async () => {
      const orderId = `order-${randomUUID()}`;
      const idempotencyKey = randomUUID();
      const token = await harness.tokenize(cards.declined);
      const first = await pay(cards.declined, { orderId, idempotencyKey, token });
      const again = await pay(cards.declined, { orderId, idempotencyKey, token });
      expect(again.result).toEqual(first.result);
      expect(first.result).toMatchObject({ status: 'failed', reason: 'card_declined' });
    });

    it('refuses a key reused for another order', async () => {
      const idempotencyKey = randomUUID();
      const token = await harness.tokenize(cards.visa);
      await pay(cards.visa, { idempotencyKey, token });
      await expect(pay(cards.visa, { idempotencyKey, token })).rejects.toBeInstanceOf(Conflict);
    });

    it('renews on a saved good card with the customer away', async () => {
      const { result } = await pay(cards.visa, { saveForLater: true });
      const savedMethod = succeeded(result).savedMethod!;
      const renewal = await provider.chargeSaved({ orderId: `order-${randomUUID()}`, amount, savedMethod, idempotencyKey: randomUUID() });
      expect(renewal).toMatchObject({ status: 'succeeded', savedMethod: null });
    });

    it('renews without authentication a card authenticated when it was saved', async () => {
      const savedMethod = await saveThroughChallenge(cards.authenticateOnce);
      const renewal = await provider.chargeSaved({ orderId: `order-${randomUUID()}`, amount, savedMethod, idempotencyKey: randomUUID() });
      expect(renewal.status).toBe('succeeded');
    });

    it('fails, softly, the renewal of a saved card that asks for authentication off session', async () => {
      const savedMethod = await saveThroughChallenge(cards.authenticateAlways);
      const orderId = `order-${randomUUID()}`;
      const idempotencyKey = randomUUID();
      const renewal = await provider.chargeSaved({ orderId, amount, savedMethod, idempotencyKey });
      expect(renewal).toMatchObject({ status: 'failed', reason: 'authentication_required', hardDecline: false });
      expect(await provider.chargeSaved({ orderId, amount, savedMethod, idempotencyKey })).toEqual(renewal);
      expect(await harness.countPayments(orderId)).toBe(1);
    });

    it('fails, hard, a renewal on a card the provider does not hold', async () => {
      const renewal = await provider.chargeSaved({
        orderId: `order-${randomUUID()}`,
        amount,
        savedMethod: { customerId: 'cus_unknown', paymentMethodId: 'pm_unknown' },
        idempotencyKey: randomUUID(),
      });
      expect(renewal).toMatchObject({ status: 'failed', hardDecline: true });
    });

    it('answers NotFound for a payment it does not know', async () => {
      await expect(provider.retrieve('pi_unknown')).rejects.toBeInstanceOf(NotFound);
    });

    it('refunds a payment in parts, never more than it took; a key answers its first refund again', async () => {
      const { orderId, result } = await pay(cards.visa);
      const { paymentId } = succeeded(result);
      const refund = (cents: number, idempotencyKey: string = randomUUID()) =>
        provider.refund({ paymentId, amount: { amount: cents, currency: 'usd' }, idempotencyKey, metadata: { orderId, refundId: idempotencyKey } });

      const key = randomUUID();
      const first = await refund(300, key);
      expect(first).toEqual({ refundId: expect.any(String), status: 'succeeded', amount: { amount: 300, currency: 'USD' } });
      expect(await refund(300, key)).toEqual(first);
      await expect(refund(700)).rejects.toBeInstanceOf(Invalid);
      const rest = await refund(699);
      expect(rest).toMatchObject({ status: 'succeeded', amount: { amount: 699, currency: 'USD' } });
      expect(rest.refundId).not.toBe(first.refundId);
      await expect(refund(1)).rejects.toBeInstanceOf(Conflict);
      await expect(provider.refund({ paymentId: 'pi_unknown', amount, idempotencyKey: randomUUID(), metadata: { orderId, refundId: 'none' } })).rejects.toBeInstanceOf(NotFound);
    });

    it('refuses to refund a payment that did not succeed', async () => {
      const { orderId, result } = await pay(cards.declined);
      if (result.status !== 'failed' || !result.paymentId) throw new Error(`expected a failed payment, got ${JSON.stringify(result)}`);
      await expect(
        provider.refund({ paymentId: result.paymentId, amount, idempotencyKey: randomUUID(), metadata: { orderId, refundId: 'declined' } }),
      ).rejects.toBeInstanceOf(Conflict);
    });

    describe('webhooks', () => {
      const now = () => Math.floor(Date.now() / 1000);
      const event = (type: string, object: Record<string, unknown>) =>
        JSON.stringify({ id: `evt_${randomUUID().replace(/-/g, '')}`, object: 'event', type, created: now(), livemode: false, data: { object } });
      const intent = (status: string, extra: Record<string, unknown> = {}) => ({
        id: 'pi_123',
        object: 'payment_intent',
        amount: 999,
        currency: 'usd',
        status,
        metadata: { orderId: 'order-1' },
        customer: 'cus_1',
        payment_method: 'pm_1',
        setup_future_usage: null,
        last_payment_error: null,
        ...extra,
      });

      it('parses a signed success, with the card it saved', () => {
        const body = event('payment_intent.succeeded', intent('succeeded', { setup_future_usage: 'off_session' }));
        const parsed = provider.parseWebhook(Buffer.from(body), signWebhook(body, harness.webhookSecret));
        expect(parsed).toEqual({
          id: JSON.parse(body).id,
          type: 'payment.succeeded',
          paymentId: 'pi_123',
          orderId: 'order-1',
          savedMethod: { customerId: 'cus_1', paymentMethodId: 'pm_1' },
        });
      });

      it('parses a signed failure with its reason', () => {
        const failure = { code: 'card_declined', decline_code: 'insufficient_funds', type: 'card_error' };
        const body = event('payment_intent.payment_failed', intent('requires_payment_method', { last_payment_error: failure }));
        expect(provider.parseWebhook(Buffer.from(body), signWebhook(body, harness.webhookSecret))).toMatchObject({
          type: 'payment.failed',
          paymentId: 'pi_123',
          orderId: 'order-1',
          reason: 'insufficient_funds',
        });
      });

      it('parses a refund and a dispute by the payment they name', () => {
        const charge = { id: 'ch_1', object: 'charge', amount: 999, amount_refunded: 400, currency: 'usd', payment_intent: 'pi_123', refunded: false };
        const refunded = event('charge.refunded', charge);
        expect(provider.parseWebhook(Buffer.from(refunded), signWebhook(refunded, harness.webhookSecret))).toEqual({
          id: JSON.parse(refunded).id,
          type: 'payment.refunded',
          paymentId: 'pi_123',
          amountRefunded: { amount: 400, currency: 'USD' },
        });
        const dispute = { id: 'dp_1', object: 'dispute', amount: 999, currency: 'usd', payment_intent: 'pi_123', reason: 'fraudulent', status: 'needs_response' };
        const opened = event('charge.dispute.created', dispute);
        expect(provider.parseWebhook(Buffer.from(opened), signWebhook(opened, harness.webhookSecret))).toMatchObject({
          type: 'payment.disputed',
          paymentId: 'pi_123',
          disputeId: 'dp_1',
          amount: { amount: 999, currency: 'USD' },
          reason: 'fraudulent',
        });
        const lost = event('charge.dispute.closed', { ...dispute, status: 'lost' });
        expect(provider.parseWebhook(Buffer.from(lost), signWebhook(lost, harness.webhookSecret))).toMatchObject({ type: 'payment.dispute_closed', disputeId: 'dp_1', won: false });
        const won = event('charge.dispute.closed', { ...dispute, status: 'won' });
        expect(provider.parseWebhook(Buffer.from(won), signWebhook(won, harness.webhookSecret))).toMatchObject({ type: 'payment.dispute_closed', won: true });
      });

      it('acknowledges, as nothing to do, a genuine event of another kind or of no order of ours', () => {
        const other = event('charge.succeeded', { id: 'ch_1', object: 'charge' });
        expect(provider.parseWebhook(Buffer.from(other), signWebhook(other, harness.webhookSecret))).toBeNull();
        const foreign = event('payment_intent.succeeded', intent('succeeded', { metadata: {} }));
        expect(provider.parseWebhook(Buffer.from(foreign), signWebhook(foreign, harness.webhookSecret))).toBeNull();
      });

      it('refuses a forged, a tampered, an unsigned and a 301-second-old webhook', () => {
        const body = event('payment_intent.succeeded', intent('succeeded'));
        const forged = signWebhook(body, 'whsec_someone_else');
        expect(() => provider.parseWebhook(Buffer.from(body), forged)).toThrow(WebhookSignatureError);
        const tampered = body.replace('order-1', 'order-2');
        expect(() => provider.parseWebhook(Buffer.from(tampered), signWebhook(body, harness.webhookSecret))).toThrow(WebhookSignatureError);
        expect(() => provider.parseWebhook(Buffer.from(body), undefined)).toThrow(WebhookSignatureError);
        const stale = signWebhook(body, harness.webhookSecret, now() - 301);
        expect(() => provider.parseWebhook(Buffer.from(body), stale)).toThrow(WebhookSignatureError);
        const recent = signWebhook(body, harness.webhookSecret, now() - 290);
        expect(provider.parseWebhook(Buffer.from(body), recent)).toMatchObject({ type: 'payment.succeeded' });
      });
    });
  });
}
