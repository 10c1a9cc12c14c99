import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { admin, type AdminVideo, type SeriesFields } from '../api';
import { ErrorState } from '../ErrorState';
import { Loading } from '../Loading';
import { useConsoleI18n } from '../i18n';
import { CoverUpload } from './CoverUpload';
import { Episodes, WORKING } from './Episodes';
import { SeriesForm } from './SeriesForm';
import { SeriesList } from './SeriesList';
import { Uploads } from './Uploads';

const fieldsOf = (video: AdminVideo): SeriesFields => ({
  title: video.title,
  description: video.description,
  tags: video.tags,
  freeEpisodes: video.freeEpisodes,
  priceCoins: video.priceCoins,
  hidden: video.hidden,
});

/**
 * Content: the series list (search and filters) with a form for a new series; a series opened
 * (?series=id) shows its edit form, cover, episodes (state, order, subtitles, re-transcode) and
 * uploads. The address says which, so a link or the back button brings the operator back there.
 */
export default function ContentPage() {
  const { t } = useConsoleI18n();
  const [params, setParams] = useSearchParams();
  const seriesId = params.get('series');
  const [notice, setNotice] = useState('');
  const open = useCallback(
    (id: string) => {
      setNotice('');
      setParams({ series: id });
    },
    [setParams],
  );
  return (
    <section aria-labelledby="content-title">
      <h1 id="content-title">{t('content.title')}</h1>
      {seriesId ? (
        <>
          <button type="button" className="console-link" onClick={() => setParams({})}>
            ← {t('content.back')}
          </button>
          {notice && <p role="status">{notice}</p>}
          <Series id={seriesId} />
        </>
      ) : (
        <>
          <SeriesList onOpen={open} />
          <NewSeries
            onCreated={(video, created) => {
              open(video.id);
              setNotice(created ? t('content.created') : t('content.exists'));
            }}
          />
        </>
      )}
    </section>
  );
}

function NewSeries({ onCreated }: { onCreated: (video: AdminVideo, created: boolean) => void }) {
  const { t } = useConsoleI18n();
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: admin.createVideo,
    onSuccess: ({ video, created }) => {
      void queryClient.invalidateQueries({ queryKey: ['admin', 'videos'] });
      onCreated(video, created);
    },
  });
  return (
    <details className="console-details">
      <summary>
        <h2 className="console-summary-title">{t('content.new')}</h2>
      </summary>
      <SeriesForm submitLabel={t('content.create')} pending={create.isPending} error={create.error} onSubmit={(fields) => create.mutate(fields)} />
    </details>
  );
}

function Series({ id }: { id: string }) {
  const { t } = useConsoleI18n();
  const queryClient = useQueryClient();
  const series = useQuery({
    queryKey: ['admin', 'video', id],
    queryFn: () => admin.video(id),
    // Each episode's state, asked again every 3 s while one is waiting or transcoding.
    refetchInterval: (query) => (query.state.data?.episodes.some((episode) => WORKING.has(episode.status)) ? 3000 : false),
  });
  const edit = useMutation({
    mutationFn: (fields: SeriesFields) => admin.updateVideo(id, fields),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['admin', 'video', id] });
      void queryClient.invalidateQueries({ queryKey: ['admin', 'videos'] });
    },
  });
  if (series.isPending) return <Loading />;
  if (series.isError) return <ErrorState error={series.error} onRetry={() => void series.refetch()} />;
  const next = Math.max(0, ...series.data.episodes.map((episode) => episode.number)) + 1;
  return (
    <section aria-labelledby="series-title">
      <h2 id="series-title">{series.data.title}</h2>
      <div className="console-columns">
        <section aria-labelledby="series-edit-title">
          <h3 id="series-edit-title">{t('content.edit')}</h3>
          {/* Keyed by the saved values: a save shows what the server kept. */}
          <SeriesForm
            key={JSON.stringify(fieldsOf(series.data))}
            initial={fieldsOf(series.data)}
            submitLabel={t('content.save')}
            pending={edit.isPending}
            error={edit.error}
            onSubmit={(fields) => edit.mutate(fields)}
          />
          {edit.isSuccess && <p role="status">{t('content.saved')}</p>}
        </section>
        <CoverUpload series={series.data} />
      </div>
      <h3>{t('content.episodes')}</h3>
      <Episodes seriesId={id} episodes={series.data.episodes} />
      <Uploads seriesId={id} firstNumber={next} onUploaded={() => void queryClient.invalidateQueries({ queryKey: ['admin', 'video', id] })} />
    </section>
  );
}
