import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/client';
import { en, type MessageKey } from '../../i18n/en';
import { es } from '../../i18n/es';
import { serverFieldErrors, validateAccountForm } from './validation';

describe('account form validation', () => {
  it('prompts for every missing field with the spec’s texts', () => {
    const errors = validateAccountForm({ email: '', password: '', confirmPassword: '' }, 'register');
    expect(Object.fromEntries(Object.entries(errors).map(([field, key]) => [field, en[key]]))).toEqual({
      email: 'Please enter your email',
      password: 'Please enter your password',
      confirmPassword: 'Please repeat your password',
    });
  });

  it('checks the email shape, a repeated password that matches, and length only where a password is chosen', () => {
    expect(validateAccountForm({ email: 'nope', password: 'short' }, 'login')).toEqual({ email: 'auth.invalidEmail' });
    expect(validateAccountForm({ email: 'a@b.co', password: 'short', confirmPassword: 'short' }, 'register')).toEqual({
      password: 'auth.passwordTooShort',
    });
    expect(validateAccountForm({ email: 'a@b.co', password: 'long enough', confirmPassword: 'different' }, 'register')).toEqual({
      confirmPassword: 'auth.passwordMismatch',
    });
    expect(validateAccountForm({ email: 'a@b.co' }, 'forgot')).toEqual({});
    expect(validateAccountForm({ password: 'long enough', confirmPassword: 'long enough' }, 'reset')).toEqual({});
  });

  it('shows the server’s 422 fields, translated when they are the spec’s prompts', () => {
    const error = new ApiError(422, 'Invalid', { fields: { email: 'Please enter your email', password: 'Too common' } });
    const spanish = (key: MessageKey) => es[key];
    expect(serverFieldErrors(error, spanish, en)).toEqual({ email: 'Introduce tu correo electrónico', password: 'Too common' });
  });

  it('puts a taken email (409) next to the email field and ignores other failures', () => {
    const english = (key: MessageKey) => en[key];
    expect(serverFieldErrors(new ApiError(409, 'Conflict'), english, en)).toEqual({ email: 'This email is already registered' });
    expect(serverFieldErrors(new ApiError(500, 'Incorrect email or password'), english, en)).toEqual({});
  });
});
