import { useState, type FormEvent } from 'react';
import { useConsoleI18n } from '../i18n';
import { uploadEpisode } from './upload';

interface FileProgress {
  name: string;
  percent: number;
  state: 'sending' | 'resuming' | 'done' | 'failed';
  error?: string;
}

/** Episode files sent resumably (tus), one after another, each with its progress; numbered from `firstNumber`. */
export function Uploads({ seriesId, firstNumber, onUploaded }: { seriesId: string; firstNumber: number; onUploaded: () => void }) {
  const { t } = useConsoleI18n();
  const [progress, setProgress] = useState<FileProgress[]>([]);
  const start = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const files = form.getAll('files').filter((file): file is File => file instanceof File && file.size > 0);
    const first = Number(form.get('first')) || firstNumber;
    setProgress(files.map((file) => ({ name: file.name, percent: 0, state: 'sending' })));
    const update = (index: number, change: Partial<FileProgress>) => setProgress((all) => all.map((entry, at) => (at === index ? { ...entry, ...change } : entry)));
    // One after another: two large files at once would only share the same connection.
    for (const [index, file] of files.entries()) {
      try {
        await uploadEpisode(
          file,
          { seriesId, number: first + index, title: file.name.replace(/\.[^.]+$/, '') },
          (sent, total) => update(index, { percent: total ? Math.floor((sent / total) * 100) : 0, state: 'sending' }),
          () => update(index, { state: 'resuming' }),
        ).done;
        update(index, { percent: 100, state: 'done' });
        onUploaded();
      } catch (error) {
        update(index, { state: 'failed', error: error instanceof Error ? error.message : String(error) });
      }
    }
  };
  return (
    <form className="console-form" onSubmit={(event) => void start(event)}>
      <h3>{t('content.upload')}</h3>
      <label>
        {t('content.files')}
        <input name="files" type="file" accept="video/*" multiple required />
      </label>
      <label>
        {t('content.firstNumber')}
        <input name="first" inputMode="numeric" defaultValue={firstNumber} key={firstNumber} />
      </label>
      <div>
        <button type="submit" className="console-button console-button--primary">
          {t('content.start')}
        </button>
      </div>
      {progress.length > 0 && (
        <ul className="console-list console-uploads" aria-live="polite">
          {progress.map((entry) => (
            <li key={entry.name}>
              {entry.state === 'failed'
                ? t('content.uploadFailed', { file: entry.name, error: entry.error ?? '' })
                : entry.state === 'done'
                  ? t('content.uploaded', { file: entry.name })
                  : entry.state === 'resuming'
                    ? t('content.resuming', { file: entry.name, percent: entry.percent })
                    : t('content.progress', { file: entry.name, percent: entry.percent })}
              <progress max={100} value={entry.percent} aria-label={entry.name} />
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}
