import { describe, expect, it } from 'vitest';
import { groupCardNumber, parseExpiry, validateCardForm } from './cardForm';

describe('card form', () => {
  it('groups the card number by four as it is typed', () => {
    expect(groupCardNumber('4242424242424242')).toBe('4242 4242 4242 4242');
    expect(groupCardNumber('4242-42')).toBe('4242 42');
  });

  it('reads MM/YY expiry dates', () => {
    expect(parseExpiry('04/31')).toEqual({ month: 4, year: 2031 });
    expect(parseExpiry('13/31')).toBeNull();
    expect(parseExpiry('4/31')).toBeNull();
  });

  it('asks for every field of the card form', () => {
    expect(validateCardForm({ cardNumber: '', email: '', expiry: '', cvv: '', firstName: ' ', lastName: '' })).toEqual({
      cardNumber: 'order.enterCard',
      email: 'auth.enterEmail',
      expiry: 'order.enterExpiry',
      cvv: 'order.enterCvv',
      firstName: 'order.enterFirstName',
      lastName: 'order.enterLastName',
    });
    expect(
      validateCardForm({ cardNumber: '4242 4242 4242 4242', email: 'a@b.co', expiry: '12/30', cvv: '123', firstName: 'Ada', lastName: 'L' }),
    ).toEqual({});
  });
});
