import { ApiError } from '../../api/client';
import type { MessageKey, Messages } from '../../i18n/en';

export type AccountField = 'email' | 'password' | 'confirmPassword';
export type FieldErrors = Partial<Record<AccountField, string>>;

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MIN_PASSWORD_LENGTH = 8;

interface AccountForm {
  email?: string;
  password?: string;
  confirmPassword?: string;
}

/** Client-side checks with the spec's prompts; `mode` says which fields the form has and how strict to be. */
export function validateAccountForm(form: AccountForm, mode: 'login' | 'register' | 'forgot' | 'reset'): Partial<Record<AccountField, MessageKey>> {
  const errors: Partial<Record<AccountField, MessageKey>> = {};
  if (mode !== 'reset') {
    const email = form.email?.trim() ?? '';
    if (!email) errors.email = 'auth.enterEmail';
    else if (!EMAIL_PATTERN.test(email)) errors.email = 'auth.invalidEmail';
  }
  if (mode !== 'forgot') {
    const password = form.password ?? '';
    if (!password) errors.password = 'auth.enterPassword';
    else if (mode !== 'login' && password.length < MIN_PASSWORD_LENGTH) errors.password = 'auth.passwordTooShort';
  }
  if (mode === 'register' || mode === 'reset') {
    if (!form.confirmPassword) errors.confirmPassword = 'auth.repeatPassword';
    else if (form.confirmPassword !== form.password) errors.confirmPassword = 'auth.passwordMismatch';
  }
  return errors;
}

/**
 * The server's field messages of a 422 (or a taken email, 409), shown in the user's language when we
 * know them: the server speaks English (`english`, the English texts: loaded on demand like every
 * language's, never part of the first load).
 */
export function serverFieldErrors(error: unknown, translate: (key: MessageKey) => string, english: Messages): FieldErrors {
  if (!(error instanceof ApiError)) return {};
  if (error.code === 409) return { email: translate('auth.emailTaken') };
  if (error.code !== 422) return {};
  const known = Object.entries(english) as Array<[MessageKey, string]>;
  const errors: FieldErrors = {};
  for (const [field, message] of Object.entries(error.fields)) {
    const key = known.find(([, text]) => text === message)?.[0];
    errors[field as AccountField] = key ? translate(key) : message;
  }
  return errors;
}
