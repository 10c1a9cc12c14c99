import { describe, expect, it } from 'vitest';
import { cardRefusal, formatExpiryInput, groupCardNumber, hasExpired, parseExpiry, passesLuhn, validateCardForm, type CardFormValues } from './cardForm';

const NOW = new Date(2026, 10, 22); // 22 November 2026
const CARD_4242 = '4242424242424242';
const good: CardFormValues = { cardNumber: '4242 4242 4242 4242', email: 'ada@example.com', expiry: '12/30', cvv: '123', firstName: 'Ada', lastName: 'Lovelace' };
const errorsOf = (changes: Partial<CardFormValues>) => validateCardForm({ ...good, ...changes }, NOW);

describe('the card form', () => {
  it('groups the card number by four as it is typed', () => {
    expect(groupCardNumber('4242424242424242')).toBe('4242 4242 4242 4242');
    expect(groupCardNumber('4242-42')).toBe('4242 42');
  });

  it('puts the slash of the expiry in by itself, and takes it out with the month’s last digit', () => {
    expect(formatExpiryInput('1')).toBe('1');
    expect(formatExpiryInput('12')).toBe('12/');
    expect(formatExpiryInput('1230')).toBe('12/30');
    expect(formatExpiryInput('12/3')).toBe('12/3');
    expect(formatExpiryInput('12', '12/')).toBe('1');
  });

  it('reads MM/YY expiry dates', () => {
    expect(parseExpiry('04/31')).toEqual({ month: 4, year: 2031 });
    expect(parseExpiry('13/31')).toBeNull();
    expect(parseExpiry('4/31')).toBeNull();
  });

  it('takes a card as good through the last day of its expiry month', () => {
    expect(hasExpired({ month: 11, year: 2026 }, NOW)).toBe(false);
    expect(hasExpired({ month: 10, year: 2026 }, NOW)).toBe(true);
    expect(hasExpired({ month: 1, year: 2027 }, NOW)).toBe(false);
  });

  it('checks the card number’s check digit (Luhn)', () => {
    expect(passesLuhn('4242424242424242')).toBe(true);
    expect(passesLuhn('4000002500003155')).toBe(true);
    expect(passesLuhn('378282246310005')).toBe(true);
    expect(passesLuhn('4242424242424241')).toBe(false);
    expect(passesLuhn('4242424242424224')).toBe(false);
  });

  it('asks for every field of the card form', () => {
    expect(validateCardForm({ cardNumber: '', email: '', expiry: '', cvv: '', firstName: ' ', lastName: '' }, NOW)).toEqual({
      cardNumber: 'order.enterCard',
      email: 'auth.enterEmail',
      expiry: 'order.enterExpiry',
      cvv: 'order.enterCvv',
      firstName: 'order.enterFirstName',
      lastName: 'order.enterLastName',
    });
    expect(validateCardForm(good, NOW)).toEqual({});
  });

  it('refuses a mistyped or too short card number', () => {
    expect(errorsOf({ cardNumber: '4242 4242 4242 4241' })).toEqual({ cardNumber: 'order.invalidCard' });
    expect(errorsOf({ cardNumber: '4242 4242 42' })).toEqual({ cardNumber: 'order.invalidCard' });
  });

  it('refuses an expired card and an expiry that is not MM/YY', () => {
    expect(errorsOf({ expiry: '10/26' })).toEqual({ expiry: 'order.cardExpired' });
    expect(errorsOf({ expiry: '11/26' })).toEqual({});
    expect(errorsOf({ expiry: '13/30' })).toEqual({ expiry: 'order.enterExpiry' });
  });

  it('wants three CVV digits, four for American Express', () => {
    expect(errorsOf({ cvv: '12' })).toEqual({ cvv: 'order.invalidCvv3' });
    expect(errorsOf({ cvv: '1234' })).toEqual({ cvv: 'order.invalidCvv3' });
    expect(errorsOf({ cardNumber: '3782 822463 10005', cvv: '123' })).toEqual({ cvv: 'order.invalidCvv4' });
    expect(errorsOf({ cardNumber: '3782 822463 10005', cvv: '1234' })).toEqual({});
  });

  it('puts a tokenizer refusal at the field it is about', () => {
    expect(cardRefusal('incorrect_number', CARD_4242)).toEqual({ field: 'cardNumber', message: 'order.invalidCard' });
    expect(cardRefusal('invalid_expiry_month', CARD_4242)).toEqual({ field: 'expiry', message: 'order.invalidExpiry' });
    expect(cardRefusal('invalid_cvc', '378282246310005')).toEqual({ field: 'cvv', message: 'order.invalidCvv4' });
    expect(cardRefusal('processing_error', CARD_4242)).toBeNull();
  });
});
