import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { admin, type AdminVideo } from '../api';
import { ErrorState } from '../ErrorState';
import { useConsoleI18n } from '../i18n';

/** The series' cover, and a new one chosen, previewed, then sent (PUT /api/admin/videos/:id/cover). */
export function CoverUpload({ series }: { series: AdminVideo }) {
  const { t } = useConsoleI18n();
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [missing, setMissing] = useState(false);
  // The preview is the chosen file itself, read by the browser: nothing is sent before "Upload".
  useEffect(() => {
    if (!file) return setPreview(null);
    const url = URL.createObjectURL(file);
    setPreview(url);
    return () => URL.revokeObjectURL(url);
  }, [file]);
  const upload = useMutation({
    mutationFn: (chosen: File) => admin.uploadCover(series.id, chosen),
    onSuccess: () => {
      setFile(null);
      void queryClient.invalidateQueries({ queryKey: ['admin', 'video', series.id] });
      void queryClient.invalidateQueries({ queryKey: ['admin', 'videos'] });
    },
  });
  return (
    <section className="console-cover">
      <h3>{t('content.cover')}</h3>
      <div className="console-cover-images">
        <figure>
          {series.cover ? <img src={series.cover} alt={t('content.coverCurrent')} /> : <p className="console-muted">{t('content.noCover')}</p>}
          {series.cover && <figcaption>{t('content.coverCurrent')}</figcaption>}
        </figure>
        {preview && (
          <figure>
            <img src={preview} alt={t('content.coverPreview')} />
            <figcaption>{t('content.coverPreview')}</figcaption>
          </figure>
        )}
      </div>
      <form
        className="console-form"
        onSubmit={(event) => {
          event.preventDefault();
          setMissing(!file);
          if (file) upload.mutate(file);
        }}
      >
        <label>
          {t('content.cover')}
          <input
            type="file"
            accept="image/jpeg,image/png,image/webp"
            onChange={(event) => {
              upload.reset();
              setMissing(false);
              setFile(event.currentTarget.files?.[0] ?? null);
            }}
          />
        </label>
        <div>
          <button type="submit" className="console-button" disabled={upload.isPending}>
            {t('content.coverUpload')}
          </button>
        </div>
        {missing && (
          <p role="alert" className="console-error-text">
            {t('content.chooseFile')}
          </p>
        )}
        {upload.isSuccess && <p role="status">{t('content.coverSaved')}</p>}
        {upload.isError && <ErrorState error={upload.error} />}
      </form>
    </section>
  );
}
