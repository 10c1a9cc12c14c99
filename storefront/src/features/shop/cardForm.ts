import type { MessageKey } from '../../i18n/en';

export interface CardFormValues {
  cardNumber: string;
  email: string;
  expiry: string;
  cvv: string;
  firstName: string;
  lastName: string;
}

export type CardFormErrors = Partial<Record<keyof CardFormValues, MessageKey>>;

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The card number's digits, without the spaces and dashes people type. */
export function cardDigits(value: string): string {
  return value.replace(/\D/g, '');
}

/** "4242 4242 4242 4242" as the user types it, grouped by four. */
export function groupCardNumber(value: string): string {
  return cardDigits(value).slice(0, 19).replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** "MM/YY" as the user types it: the slash comes by itself after the month. */
export function formatExpiryInput(value: string, previous = ''): string {
  const digits = value.replace(/\D/g, '').slice(0, 4);
  // Deleting the slash deletes the month's last digit too, or the slash would come straight back.
  if (previous.endsWith('/') && value === previous.slice(0, -1)) return digits.slice(0, 1);
  return digits.length >= 2 ? `${digits.slice(0, 2)}/${digits.slice(2)}` : digits;
}

/** The check digit every card number carries (ISO/IEC 7812): catches a mistyped or swapped digit. */
export function passesLuhn(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

/** American Express numbers start 34 or 37 and carry a four-digit CVV on the front; every other brand three. */
export function cvvLength(digits: string): 3 | 4 {
  return /^3[47]/.test(digits) ? 4 : 3;
}

/** "MM/YY" to month and four-digit year, or null when it is not a date. */
export function parseExpiry(value: string): { month: number; year: number } | null {
  const match = /^(\d{2})\s*\/\s*(\d{2})$/.exec(value.trim());
  if (!match) return null;
  const month = Number(match[1]);
  return month >= 1 && month <= 12 ? { month, year: 2000 + Number(match[2]) } : null;
}

/** A card is good through the last day of its expiry month. */
export function hasExpired(expiry: { month: number; year: number }, now: Date): boolean {
  const thisMonth = now.getFullYear() * 12 + now.getMonth();
  return expiry.year * 12 + (expiry.month - 1) < thisMonth;
}

/** The payer's fields, the whole form when Stripe's own field takes the card: an email, a first and a last name. */
export function validatePayer(values: Pick<CardFormValues, 'email' | 'firstName' | 'lastName'>): CardFormErrors {
  const errors: CardFormErrors = {};
  const email = values.email.trim();
  if (!email) errors.email = 'auth.enterEmail';
  else if (!EMAIL_PATTERN.test(email)) errors.email = 'auth.invalidEmail';
  if (!values.firstName.trim()) errors.firstName = 'order.enterFirstName';
  if (!values.lastName.trim()) errors.lastName = 'order.enterLastName';
  return errors;
}

/**
 * The checks a card form can make before asking the provider: every field present, the number's
 * length and check digit, an expiry that has not passed, the CVV's length for the card's brand.
 * Whether the card can pay is the provider's answer, at pay time.
 */
export function validateCardForm(values: CardFormValues, now = new Date()): CardFormErrors {
  return { ...validateCard(values, now), ...validatePayer(values) };
}

/** The card's own fields, the whole form of a card given without a purchase (a past-due VIP's new card). */
export function validateCard(values: Pick<CardFormValues, 'cardNumber' | 'expiry' | 'cvv'>, now = new Date()): CardFormErrors {
  const errors: CardFormErrors = {};
  const digits = cardDigits(values.cardNumber);
  if (!digits) errors.cardNumber = 'order.enterCard';
  else if (digits.length < 12 || digits.length > 19 || !passesLuhn(digits)) errors.cardNumber = 'order.invalidCard';

  const expiry = parseExpiry(values.expiry);
  if (!expiry) errors.expiry = 'order.enterExpiry';
  else if (hasExpired(expiry, now)) errors.expiry = 'order.cardExpired';

  const cvv = values.cvv.trim();
  if (!cvv) errors.cvv = 'order.enterCvv';
  else if (!/^\d+$/.test(cvv) || cvv.length !== cvvLength(digits)) errors.cvv = cvvLength(digits) === 4 ? 'order.invalidCvv4' : 'order.invalidCvv3';
  return errors;
}

/** What a card field holds after a keystroke: the number grouped, the expiry's slash, the CVV's digits. */
export function typedInto(name: keyof CardFormValues, typed: string, previous: string): string {
  if (name === 'cardNumber') return groupCardNumber(typed);
  if (name === 'expiry') return formatExpiryInput(typed, previous);
  if (name === 'cvv') return typed.replace(/\D/g, '').slice(0, 4);
  return typed;
}

/**
 * A tokenizer refusal (Stripe's error codes) as the field it is about and our own words for it, so
 * the message shows at that field and in the viewer's language; null for codes about no one field.
 */
export function cardRefusal(code: string, cardNumber: string): { field: keyof CardFormValues; message: MessageKey } | null {
  switch (code) {
    case 'invalid_number':
    case 'incorrect_number':
      return { field: 'cardNumber', message: 'order.invalidCard' };
    case 'invalid_expiry_month':
    case 'invalid_expiry_year':
      return { field: 'expiry', message: 'order.invalidExpiry' };
    case 'invalid_cvc':
      return { field: 'cvv', message: cvvLength(cardDigits(cardNumber)) === 4 ? 'order.invalidCvv4' : 'order.invalidCvv3' };
    case 'email_invalid':
      return { field: 'email', message: 'auth.invalidEmail' };
    default:
      return null;
  }
}
