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

/** "4242 4242 4242 4242" as the user types it, grouped by four. */
export function groupCardNumber(value: string): string {
  return value.replace(/\D/g, '').slice(0, 19).replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** "MM/YY" to month and four-digit year, or null when it is not a date. */
export function parseExpiry(value: string): { month: number; year: number } | null {
  const match = /^(\d{2})\s*\/\s*(\d{2})$/.exec(value.trim());
  if (!match) return null;
  const month = Number(match[1]);
  return month >= 1 && month <= 12 ? { month, year: 2000 + Number(match[2]) } : null;
}

/** Presence and shape only; whether the card is real is the provider's answer. */
export function validateCardForm(values: CardFormValues): CardFormErrors {
  const errors: CardFormErrors = {};
  const digits = values.cardNumber.replace(/\D/g, '');
  if (digits.length < 12) errors.cardNumber = 'order.enterCard';
  if (!EMAIL_PATTERN.test(values.email.trim())) errors.email = values.email.trim() ? 'auth.invalidEmail' : 'auth.enterEmail';
  if (!parseExpiry(values.expiry)) errors.expiry = 'order.enterExpiry';
  if (!/^\d{3,4}$/.test(values.cvv)) errors.cvv = 'order.enterCvv';
  if (!values.firstName.trim()) errors.firstName = 'order.enterFirstName';
  if (!values.lastName.trim()) errors.lastName = 'order.enterLastName';
  return errors;
}
