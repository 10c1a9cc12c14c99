import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { admin, AdminError, SUBTITLE_LANGS, type AdminEpisode, type AdminSubtitle, type SubtitleLang } from '../api';
import { Dialog } from '../Dialog';
import { ErrorState } from '../ErrorState';
import { useConsoleI18n } from '../i18n';
import { QueryStates } from '../QueryStates';
import { CONSOLE_LANGUAGES } from '../texts';

/** Each language's own name, as the console's language menu shows it. */
const languageOf = (lang: SubtitleLang) => CONSOLE_LANGUAGES.find((language) => language.code === lang)!;

/**
 * An episode's subtitles in each interface language: uploaded, replaced or removed one language at
 * a time. The API checks the WebVTT file and names the line it refuses; that line leads the message.
 */
export function SubtitlesDialog({ episode, onClose }: { episode: AdminEpisode; onClose: () => void }) {
  const { t } = useConsoleI18n();
  const subtitles = useQuery({ queryKey: ['admin', 'subtitles', episode.id], queryFn: () => admin.subtitles(episode.id) });
  return (
    <Dialog title={t('content.subtitlesOf', { number: episode.number })} onClose={onClose}>
      <QueryStates query={subtitles}>
        {(data) => (
          <ul className="console-subtitles">
            {SUBTITLE_LANGS.map((lang) => (
              <SubtitleLanguage key={lang} episodeId={episode.id} lang={lang} current={data.find((subtitle) => subtitle.lang === lang)} />
            ))}
          </ul>
        )}
      </QueryStates>
      <div className="console-actions">
        <button type="button" className="console-button" onClick={onClose}>
          {t('close')}
        </button>
      </div>
    </Dialog>
  );
}

/** A refusal as the operator reads it: "Refused at line 3: …" when the API named the line. */
function refusalOf(error: unknown, t: ReturnType<typeof useConsoleI18n>['t']): string | null {
  if (!(error instanceof AdminError) || error.code !== 422) return null;
  const message = error.fields.file ?? error.message;
  const at = /^line (\d+): (.*)$/s.exec(message);
  return at ? t('content.refusedAt', { line: at[1]!, message: at[2]! }) : t('content.refused', { message });
}

function SubtitleLanguage({ episodeId, lang, current }: { episodeId: string; lang: SubtitleLang; current: AdminSubtitle | undefined }) {
  const { t } = useConsoleI18n();
  const id = useId();
  const queryClient = useQueryClient();
  const [missing, setMissing] = useState(false);
  const { name: language, htmlLang } = languageOf(lang);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['admin', 'subtitles', episodeId] });
  const put = useMutation({ mutationFn: (file: File) => admin.putSubtitles(episodeId, lang, file), onSuccess: refresh });
  const remove = useMutation({ mutationFn: () => admin.removeSubtitles(episodeId, lang), onSuccess: refresh });
  const refusal = refusalOf(put.error, t);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const file = (event.currentTarget.elements.namedItem('file') as HTMLInputElement).files?.[0];
    setMissing(!file);
    remove.reset();
    if (file) put.mutate(file);
  };

  return (
    <li>
      <form className="console-form" onSubmit={submit} aria-labelledby={`${id}-name`}>
        <p>
          <strong id={`${id}-name`} lang={htmlLang}>
            {language}
          </strong>
          {' · '}
          <span className="console-muted">
            {t('content.subtitleCurrent')}: {current ? t('content.subtitleCues', { cues: current.cues }) : t('content.subtitleNone')}
          </span>
        </p>
        <label>
          {t('content.subtitleFile', { language })}
          <input
            name="file"
            type="file"
            accept=".vtt,text/vtt"
            aria-invalid={refusal || missing ? true : undefined}
            aria-describedby={refusal || missing ? `${id}-problem` : undefined}
            onChange={() => {
              setMissing(false);
              put.reset();
            }}
          />
        </label>
        <span className="console-order">
          <button type="submit" className="console-button" disabled={put.isPending}>
            {current ? t('content.subtitleReplace', { language }) : t('content.subtitleUpload', { language })}
          </button>
          {current && (
            <button type="button" className="console-button console-button--danger" disabled={remove.isPending} onClick={() => remove.mutate()}>
              {t('content.subtitleRemove', { language })}
            </button>
          )}
        </span>
        {(refusal || missing) && (
          <p id={`${id}-problem`} role="alert" className="console-error-text">
            {refusal ?? t('content.chooseFile')}
          </p>
        )}
        {put.isError && !refusal && <ErrorState error={put.error} />}
        {remove.isError && <ErrorState error={remove.error} />}
        {put.isSuccess && <p role="status">{t('content.subtitleSaved', { language, cues: put.data.cues })}</p>}
        {remove.isSuccess && <p role="status">{t('content.subtitleRemoved', { language })}</p>}
      </form>
    </li>
  );
}
