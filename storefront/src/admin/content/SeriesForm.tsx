import { useId, useState, type FormEvent } from 'react';
import { AdminError, type SeriesFields } from '../api';
import { ErrorState } from '../ErrorState';
import { useConsoleI18n } from '../i18n';
import { fieldHints } from '../fieldHints';

type FieldName = keyof SeriesFields;
type Problems = Partial<Record<FieldName, string>>;

/** A whole number from 0, or null for anything else (an empty field too). */
const wholeNumber = (value: FormDataEntryValue | null) => (/^\d{1,7}$/.test(String(value ?? '').trim()) ? Number(String(value).trim()) : null);

/** The API's field errors by form field: `tags.2` is the tags field's. */
export function fieldProblems(error: unknown): Problems {
  if (!(error instanceof AdminError)) return {};
  const problems: Problems = {};
  for (const [field, message] of Object.entries(error.fields)) {
    const name = field.split('.')[0] as FieldName;
    problems[name] ??= message;
  }
  return problems;
}

/**
 * A series' fields, for a new series (`initial` absent) or an edit: title, description, tags,
 * price per episode, free episodes, published or hidden. Checked here first; the API's own
 * refusals (422) show beside the field they name.
 */
export function SeriesForm({
  initial,
  submitLabel,
  pending,
  error,
  onSubmit,
}: {
  initial?: SeriesFields;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  onSubmit: (fields: SeriesFields) => void;
}) {
  const { t } = useConsoleI18n();
  const id = useId();
  const [local, setLocal] = useState<Problems>({});
  // The form's own checks first: while one fails, the last answer of the API is not shown.
  const checking = Object.keys(local).length > 0;
  const problems: Problems = checking ? local : fieldProblems(error);
  const shown = checking ? null : error;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const title = String(form.get('title') ?? '').trim();
    const freeEpisodes = wholeNumber(form.get('freeEpisodes'));
    const priceCoins = wholeNumber(form.get('priceCoins'));
    const found: Problems = {};
    if (!title) found.title = t('content.titleRequired');
    if (freeEpisodes === null) found.freeEpisodes = t('content.numberInvalid');
    if (priceCoins === null) found.priceCoins = t('content.numberInvalid');
    setLocal(found);
    if (Object.keys(found).length) return;
    onSubmit({
      title,
      description: String(form.get('description') ?? '').trim(),
      tags: String(form.get('tags') ?? '')
        .split(',')
        .map((tag) => tag.trim())
        .filter(Boolean),
      freeEpisodes: freeEpisodes!,
      priceCoins: priceCoins!,
      hidden: form.get('visibility') === 'hidden',
    });
  };

  const { problemOf, described } = fieldHints<FieldName>(id, problems);

  return (
    <form className="console-form" onSubmit={submit} noValidate>
      <label>
        {t('content.fieldTitle')}
        <input name="title" defaultValue={initial?.title ?? ''} maxLength={200} required {...described('title')} />
      </label>
      {problemOf('title')}
      <label>
        {t('content.description')}
        <textarea name="description" defaultValue={initial?.description ?? ''} rows={4} maxLength={5000} {...described('description')} />
      </label>
      {problemOf('description')}
      <label>
        {t('content.tags')}
        <input name="tags" defaultValue={initial?.tags.join(', ') ?? ''} {...described('tags')} />
      </label>
      {problemOf('tags')}
      <label>
        {t('content.price')}
        <input name="priceCoins" inputMode="numeric" defaultValue={initial?.priceCoins ?? 50} {...described('priceCoins')} />
      </label>
      {problemOf('priceCoins')}
      <label>
        {t('content.free')}
        <input name="freeEpisodes" inputMode="numeric" defaultValue={initial?.freeEpisodes ?? 5} {...described('freeEpisodes')} />
      </label>
      {problemOf('freeEpisodes')}
      <fieldset aria-describedby={`${id}-hint`}>
        <legend>{t('content.visibility')}</legend>
        <label className="console-inline">
          <input type="radio" name="visibility" value="published" defaultChecked={!initial?.hidden} />
          {t('content.published')}
        </label>
        <label className="console-inline">
          <input type="radio" name="visibility" value="hidden" defaultChecked={Boolean(initial?.hidden)} />
          {t('content.hidden')}
        </label>
        <span id={`${id}-hint`} className="console-muted">
          {t('content.hiddenHint')}
        </span>
        {problemOf('hidden')}
      </fieldset>
      <div>
        <button type="submit" className="console-button console-button--primary" disabled={pending}>
          {submitLabel}
        </button>
      </div>
      {Boolean(shown) && <ErrorState error={shown} />}
    </form>
  );
}
