/**
 * The sandbox's cards, as Stripe's test mode treats them: the tokenizer checks the card's form, the
 * outcome shows at charge time. Only brand, last4, expiry and the outcome are kept, never the
 * number or the CVC.
 */

/** What charging a card does. The two authentication outcomes are Stripe's 3155 and 3184 cards. */
export type CardOutcome =
  | 'succeeds'
  | 'card_declined'
  | 'insufficient_funds'
  | 'incorrect_cvc'
  | 'expired_card'
  | 'processing_error'
  | 'lost_card'
  | 'stolen_card'
  /** Authenticates on session; once set up for off-session use, renewals pass without it. */
  | 'authentication_on_setup'
  /** Authenticates on every charge, so off-session renewals fail. */
  | 'authentication_always'
  /** A real card number: test mode declines it. */
  | 'live_card';

/** Stripe's test cards by what they do, for tests and tools that pay in the sandbox or Stripe's test mode. */
export const TEST_CARDS = {
  visa: '4242424242424242',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
  incorrectCvc: '4000000000000127',
  authenticateOnce: '4000002500003155',
  authenticateAlways: '4000002760003184',
  lost: '4000000000009987',
  stolen: '4000000000009979',
};

const testCards: Record<string, CardOutcome> = {
  '4242424242424242': 'succeeds',
  '4000056655665556': 'succeeds',
  '5555555555554444': 'succeeds',
  '2223003122003222': 'succeeds',
  '378282246310005': 'succeeds',
  '6011111111111117': 'succeeds',
  '3566002020360505': 'succeeds',
  '4000000000000002': 'card_declined',
  '4000000000009995': 'insufficient_funds',
  '4000000000000127': 'incorrect_cvc',
  '4000000000000069': 'expired_card',
  '4000000000000119': 'processing_error',
  '4000000000009987': 'lost_card',
  '4000000000009979': 'stolen_card',
  '4000002500003155': 'authentication_on_setup',
  '4000002760003184': 'authentication_always',
};

/** Stripe's error `code` and `decline_code` for each declining outcome. */
export const declines: Partial<Record<CardOutcome, { code: string; declineCode: string }>> = {
  card_declined: { code: 'card_declined', declineCode: 'generic_decline' },
  insufficient_funds: { code: 'card_declined', declineCode: 'insufficient_funds' },
  incorrect_cvc: { code: 'incorrect_cvc', declineCode: 'incorrect_cvc' },
  expired_card: { code: 'expired_card', declineCode: 'expired_card' },
  processing_error: { code: 'processing_error', declineCode: 'processing_error' },
  lost_card: { code: 'card_declined', declineCode: 'lost_card' },
  stolen_card: { code: 'card_declined', declineCode: 'stolen_card' },
  live_card: { code: 'card_declined', declineCode: 'test_mode_live_card' },
};

/** The outcome of a card number: a test card's, or a real card's (declined in test mode). */
export const outcomeOfCard = (number: string): CardOutcome => testCards[number.replace(/[\s-]/g, '')] ?? 'live_card';

export type ChargeDecision =
  | { kind: 'succeed' }
  | { kind: 'authenticate' }
  | { kind: 'decline'; code: string; declineCode: string };

/** What a charge of a card with `outcome` does, the customer present (on session) or away (renewals). */
export function decideCharge(outcome: CardOutcome, session: 'on' | 'off'): ChargeDecision {
  const decline = declines[outcome];
  if (decline) return { kind: 'decline', ...decline };
  if (outcome === 'authentication_always' && session === 'off') {
    return { kind: 'decline', code: 'authentication_required', declineCode: 'authentication_required' };
  }
  if (outcome === 'succeeds' || session === 'off') return { kind: 'succeed' };
  return { kind: 'authenticate' };
}

export interface CheckedCard {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  outcome: CardOutcome;
}

export type CardCheck = { ok: true; card: CheckedCard } | { ok: false; code: string; message: string };

// Token API brands, as Stripe names them there.
const brands: [RegExp, string][] = [
  [/^4/, 'Visa'],
  [/^(5[1-5]|222[1-9]|22[3-9]|2[3-6]|27[01]|2720)/, 'MasterCard'],
  [/^3[47]/, 'American Express'],
  [/^(6011|65|64[4-9])/, 'Discover'],
  [/^35/, 'JCB'],
  [/^(30[0-5]|36|38)/, 'Diners Club'],
  [/^62/, 'UnionPay'],
];

const brandOf = (digits: string) => brands.find(([prefix]) => prefix.test(digits))?.[1] ?? 'Unknown';

function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

// A month or year may come as a JSON number or a string of digits, as Stripe.js sends either.
function wholeNumber(value: unknown, maxDigits: number): number | null {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 && String(value).length <= maxDigits ? value : null;
  if (typeof value === 'string' && new RegExp(`^\\d{1,${maxDigits}}$`).test(value.trim())) return Number(value.trim());
  return null;
}

const refuse = (code: string, message: string): CardCheck => ({ ok: false, code, message });

/** Checks a card's form as Stripe's tokenizer does: any input, never a throw. */
export function checkCard(card: unknown, now = new Date()): CardCheck {
  if (typeof card !== 'object' || card === null || Array.isArray(card)) return refuse('invalid_number', 'Enter your card details.');
  const { number, exp_month: month, exp_year: year, cvc } = card as Record<string, unknown>;
  if (typeof number !== 'string' || number.length > 40) return refuse('invalid_number', 'Your card number is invalid.');
  const digits = number.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits)) return refuse('invalid_number', 'Your card number is invalid.');
  if (!passesLuhn(digits)) return refuse('incorrect_number', 'Your card number is incorrect.');

  const expMonth = wholeNumber(month, 2);
  if (expMonth === null || expMonth < 1 || expMonth > 12) return refuse('invalid_expiry_month', "Your card's expiration month is invalid.");
  const givenYear = wholeNumber(year, 4);
  const expYear = givenYear !== null && givenYear < 100 ? 2000 + givenYear : givenYear;
  const thisYear = now.getUTCFullYear();
  if (expYear === null || expYear < thisYear || expYear > thisYear + 50) {
    return refuse('invalid_expiry_year', "Your card's expiration year is invalid.");
  }
  if (expYear === thisYear && expMonth < now.getUTCMonth() + 1) return refuse('invalid_expiry_month', "Your card's expiration month is invalid.");

  const brand = brandOf(digits);
  const cvcDigits = brand === 'American Express' ? 4 : 3;
  if (typeof cvc !== 'string' || !new RegExp(`^\\d{${cvcDigits}}$`).test(cvc.trim())) {
    return refuse('invalid_cvc', "Your card's security code is invalid.");
  }
  return { ok: true, card: { brand, last4: digits.slice(-4), expMonth, expYear, outcome: outcomeOfCard(digits) } };
}
