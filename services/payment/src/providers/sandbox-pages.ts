import type { Money } from './provider.ts';
import type { PaymentView } from './sandbox-provider.ts';

/**
 * The sandbox's two pages, the stand-ins for a bank's 3-D Secure challenge and PayPal's approval:
 * self-contained HTML (no script, no outside resource), one form per button.
 */

/** No script, no outside resource, never framed: what these pages send with them. */
export const pageSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'";

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/** Minor units shown in the currency's own digits (cents for USD, none for JPY). */
function formatMoney({ amount, currency }: Money): string {
  try {
    const format = new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() });
    return format.format(amount / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
  } catch {
    return `${amount} ${currency.toUpperCase()}`;
  }
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: #f4f4f6; color: #1d1d22;
         font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  main { width: min(24rem, calc(100% - 2rem)); background: #fff; border-radius: 12px; padding: 1.5rem;
         box-shadow: 0 2px 12px rgba(0, 0, 0, .08); }
  .tag { display: inline-block; font-size: .75rem; letter-spacing: .04em; text-transform: uppercase; color: #8a5a00;
         background: #fff3d6; border-radius: 4px; padding: .1rem .4rem; }
  h1 { font-size: 1.25rem; margin: .75rem 0 .25rem; }
  .amount { font-size: 1.75rem; font-weight: 600; margin: .5rem 0 1rem; }
  form { margin: .5rem 0 0; }
  button { width: 100%; font: inherit; font-weight: 600; border: 0; border-radius: 8px; padding: .75rem; cursor: pointer;
           background: #3b3bd6; color: #fff; }
  button.secondary { background: #eceef2; color: #1d1d22; }
  button:focus-visible { outline: 3px solid #9c9cf0; outline-offset: 2px; }
</style>
</head>
<body>
<main>
<span class="tag">Sandbox · test mode · no real money</span>
${body}
</main>
</body>
</html>`;
}

/** Forms post relative to the page's own address, so the pages work under any mount path. */
function button(action: string, label: string, secondary = false): string {
  return `<form method="post" action="${escapeHtml(action)}"><button type="submit"${secondary ? ' class="secondary"' : ''}>${escapeHtml(label)}</button></form>`;
}

export function challengePage(payment: PaymentView): string {
  const card = payment.card ? `${payment.card.brand} ending in ${payment.card.last4}` : 'your card';
  return page(
    '3-D Secure test challenge',
    `<h1>Confirm your payment</h1>
<p>Your bank asks you to confirm this payment with ${escapeHtml(card)}.</p>
<p class="amount">${escapeHtml(formatMoney(payment.amount))}</p>
${button(`${payment.id}/complete`, 'Complete authentication')}
${button(`${payment.id}/fail`, 'Fail authentication', true)}`,
  );
}

export function paypalPage(payment: PaymentView): string {
  return page(
    'PayPal sandbox',
    `<h1>Pay with PayPal</h1>
<p>Approve this payment to Cliffhanger.</p>
<p class="amount">${escapeHtml(formatMoney(payment.amount))}</p>
${button(`${payment.id}/approve`, 'Approve and pay')}
${button(`${payment.id}/cancel`, 'Cancel and return', true)}`,
  );
}

export function notFoundPage(): string {
  return page('Payment not found', '<h1>Payment not found</h1><p>This test payment does not exist.</p>');
}
