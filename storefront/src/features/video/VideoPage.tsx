import { useEffect } from 'react';
import { Link, useParams, useSearchParams } from 'react-router-dom';
import { ApiError } from '../../api/client';
import type { EpisodeSummary } from '../../api/types';
import { BookmarkFilledIcon, BookmarkIcon, LockIcon, PlayIcon } from '../../components/Icons';
import { useT } from '../../i18n/I18nProvider';
import { trackContentView } from '../../lib/conversions';
import { formatClock, formatCount } from '../../lib/format';
import { showToast } from '../../lib/toast';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { EpisodeGrid } from './EpisodeGrid';
import { MoreLikeThis } from './MoreLikeThis';
import { Player } from './Player';
import { useEpisode, useToggleFavorite, useVideo } from './queries';
import { ShareButton } from './ShareButton';
import { usePlayOn } from './usePlayOn';
import { useWatchHistory } from './useWatchHistory';
import './video.css';

export function VideoPage() {
  const t = useT();
  const id = useParams().id ?? '';
  const [params, setParams] = useSearchParams();
  const video = useVideo(id);
  const favorite = useToggleFavorite(video.data);
  useDocumentTitle(video.data?.title);

  const episodes = video.data?.episodes ?? [];
  const requested = params.get('ep');
  const resume = video.data?.resume ?? null;
  const resumeEpisode = episodes.find((episode) => episode.id === resume?.episodeId);
  const current: EpisodeSummary | undefined = requested
    ? episodes.find((episode) => episode.id === requested)
    : (resumeEpisode ?? episodes[0]);
  const index = current ? episodes.indexOf(current) : -1;
  const episode = useEpisode(current && (current.ready || current.locked) ? current.id : undefined);
  const onPosition = useWatchHistory(episode.data?.id);
  const locked = episode.error instanceof ApiError && episode.error.code === 402;
  const startAt = current && resume?.episodeId === current.id ? resume.positionSeconds : 0;

  const watchingId = episode.data?.id;
  useEffect(() => {
    if (watchingId) trackContentView(id, watchingId);
  }, [id, watchingId]);

  const select = (target: EpisodeSummary | undefined) => {
    if (!target) return;
    const next = new URLSearchParams(params);
    next.set('ep', target.id);
    setParams(next, { replace: true, preventScrollReset: true });
  };
  const next = episodes[index + 1];
  const previous = index > 0 ? episodes[index - 1] : undefined;
  const { playOn, unlocking } = usePlayOn(video.data, select);

  if (video.isError) {
    return (
      <div className="empty-page">
        <h1>{t('video.notFound')}</h1>
        <Link to="/" className="button button--primary">
          {t('notFound.home')}
        </Link>
      </div>
    );
  }
  if (!video.data) {
    return (
      <div className="watch" aria-busy="true">
        <div className="watch__stage">
          <div className="player skeleton" />
        </div>
        <p className="visually-hidden" role="status">{t('list.loading')}</p>
      </div>
    );
  }

  const data = video.data;
  const overlay = locked ? (
    <div className="player__locked">
      <LockIcon size={36} />
      <p>{t('video.locked')}</p>
      <button type="button" className="button button--primary" onClick={() => void episode.refetch()}>
        {t('unlock.titleGeneric')}
      </button>
    </div>
  ) : current && !current.ready && !current.locked ? (
    <div className="player__locked">
      <p>{t('player.preparing')}</p>
    </div>
  ) : undefined;

  return (
    <div className="watch">
      <div className="watch__stage">
        <Player
          url={episode.data?.playback.url}
          videoId={id}
          episodeId={episode.data?.id}
          poster={data.cover}
          startAt={startAt}
          overlay={overlay}
          hasNext={Boolean(next)}
          hasPrevious={Boolean(previous)}
          onNext={() => playOn(next)}
          onPrevious={() => select(previous)}
          onEnded={() => playOn(next)}
          onPosition={onPosition}
        />
        {unlocking ? (
          <p className="watch__hint" role="status">
            {t('unlock.autoUnlocking', { n: unlocking.number })}
          </p>
        ) : (
          next && <p className="watch__hint">{t('player.swipeHint')}</p>
        )}
      </div>
      <div className="watch__info">
        <h1 className="watch__title">{data.title}</h1>
        <p className="watch__meta">
          {current && <span>{t('video.episodeN', { n: current.number })} / {data.episodeCount}</span>}
          <span>
            <PlayIcon size={12} /> {t(data.playCount === 1 ? 'card.play' : 'video.plays', { count: formatCount(data.playCount) })}
          </span>
        </p>
        <ul className="chips chips--small">
          {data.tags.map((tag) => (
            <li key={tag} className="chip">{tag}</li>
          ))}
        </ul>
        <div className="watch__actions">
          <button
            type="button"
            className="action"
            aria-pressed={data.favorited}
            disabled={favorite.isPending}
            onClick={() =>
              favorite.mutate(!data.favorited, {
                onSuccess: (_, added) => showToast(t(added ? 'video.addedToList' : 'video.removedFromList'), 'success'),
              })
            }
          >
            {data.favorited ? <BookmarkFilledIcon /> : <BookmarkIcon />}
            <span>{data.favorited ? t('video.inList') : t('video.addToList')}</span>
          </button>
          <ShareButton />
        </div>
        {resume && resumeEpisode && !requested && resume.positionSeconds > 0 && (
          <p className="watch__resume">{t('video.resume', { n: resumeEpisode.number, time: formatClock(resume.positionSeconds) })}</p>
        )}
        {data.description && (
          <section className="watch__about" aria-label={t('video.description')}>
            <p>{data.description}</p>
          </section>
        )}
        <div className="watch__episodes-head">
          <h2 className="section-title">{t('video.episodes')}</h2>
          {data.freeEpisodes > 0 && <span className="watch__free">{t('video.freeEpisodes', { count: data.freeEpisodes })}</span>}
        </div>
        <EpisodeGrid episodes={episodes} currentId={current?.id} onSelect={select} />
        <MoreLikeThis video={data} />
      </div>
    </div>
  );
}
