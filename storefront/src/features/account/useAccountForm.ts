import { useState, type FormEvent } from 'react';
import type { Messages } from '../../i18n/en';
import { useT } from '../../i18n/I18nProvider';
import { loadMessages } from '../../i18n/languages';
import { serverFieldErrors, validateAccountForm, type AccountField, type FieldErrors } from './validation';

type Mode = Parameters<typeof validateAccountForm>[1];

/** Form state for the account forms: values, client errors on submit, server errors after it. */
export function useAccountForm(mode: Mode, submit: (values: Record<AccountField, string>) => Promise<unknown>) {
  const t = useT();
  const [values, setValues] = useState<Record<AccountField, string>>({ email: '', password: '', confirmPassword: '' });
  const [errors, setErrors] = useState<FieldErrors>({});

  const field = (name: AccountField) => ({
    name,
    value: values[name],
    error: errors[name],
    onChange: (event: React.ChangeEvent<HTMLInputElement>) => {
      setValues((current) => ({ ...current, [name]: event.target.value }));
      if (errors[name]) setErrors((current) => ({ ...current, [name]: undefined }));
    },
  });

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const found = validateAccountForm(values, mode);
    const translated = Object.fromEntries(Object.entries(found).map(([name, key]) => [name, t(key)])) as FieldErrors;
    setErrors(translated);
    if (Object.keys(translated).length > 0) return;
    try {
      await submit({ ...values, email: values.email.trim() });
    } catch (error) {
      // Without the English texts (a chunk that cannot load), the server's own words are shown.
      const english = await loadMessages.en().catch(() => ({}) as Messages);
      setErrors(serverFieldErrors(error, t, english));
    }
  };

  return { field, onSubmit, values };
}
