import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router-dom';
import { ApiError } from '../../api/client';
import type { Episode, EpisodeSummary } from '../../api/types';
import { BookmarkIcon } from '../../components/Icons';
import { BookmarkFilledIcon, LockIcon, PlayIcon } from '../../components/PageIcons';
import { useT } from '../../i18n/I18nProvider';
import { trackContentView } from '../../lib/conversions';
import { formatClock, formatCount } from '../../lib/format';
import { showToast } from '../../lib/toast';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { preloadPlayer } from './attachStream';
import { EpisodeGrid } from './EpisodeGrid';
import { MoreLikeThis } from './MoreLikeThis';
import { Player } from './Player';
import { useToggleFavorite, useVideo, videoQueries } from './queries';
import { ShareButton } from './ShareButton';
import { usePlayOn } from './usePlayOn';
import { useWatchHistory } from './useWatchHistory';
import './video.css';

// A grant lasts hours: an episode answered a moment ago (the preloaded next one) plays on that
// grant rather than asking again as it opens, until the grant nears its end.
const GRANT_MARGIN_MS = 10 * 60_000;
const DAY_MS = 86_400_000;

function usePlayableEpisode(episodeId: string | undefined) {
  return useQuery({
    ...videoQueries.episode(episodeId),
    enabled: Boolean(episodeId),
    staleTime: (query) => {
      const expiresAt = query.state.data?.playback.expiresAt;
      // Bounded by a day: past setTimeout's 24.8 days the query's timer would fire at once, again and again.
      return expiresAt ? Math.min(Math.max(0, Date.parse(expiresAt) - Date.now() - GRANT_MARGIN_MS), DAY_MS) : 0;
    },
  });
}

export function VideoPage() {
  const t = useT();
  const id = useParams().id ?? '';
  const [params, setParams] = useSearchParams();
  const video = useVideo(id);
  // hls.js downloads while the series and episode calls are under way, not after them.
  useEffect(preloadPlayer, []);
  const favorite = useToggleFavorite(video.data);
  useDocumentTitle(video.data?.title, { description: video.data?.description, image: video.data?.cover });

  const episodes = video.data?.episodes ?? [];
  // The episode just chosen (a swipe, a tap) plays from that very event; the address follows in a
  // router transition a few frames later, and until it does the choice stands for it.
  const [chosen, setChosen] = useState<{ id: string; videoId: string; whileAddressSays: string | null } | null>(null);
  const address = params.get('ep');
  const pending = chosen && chosen.videoId === id && chosen.whileAddressSays === address;
  if (chosen && !pending) setChosen(null);
  const requested = pending ? chosen.id : address;
  const resume = video.data?.resume ?? null;
  const resumeEpisode = episodes.find((episode) => episode.id === resume?.episodeId);
  const current: EpisodeSummary | undefined = requested
    ? episodes.find((episode) => episode.id === requested)
    : (resumeEpisode ?? episodes[0]);
  const index = current ? episodes.indexOf(current) : -1;
  const episode = usePlayableEpisode(current && (current.ready || current.locked) ? current.id : undefined);
  const history = useWatchHistory(episode.data?.id);
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
    setChosen({ id: target.id, videoId: id, whileAddressSays: params.get('ep') });
    setParams(next, { replace: true, preventScrollReset: true });
  };
  const next = episodes[index + 1];
  const previous = index > 0 ? episodes[index - 1] : undefined;
  // One grant per viewing: the episode's query refetches when it is opened again (as a preloaded
  // one is), and a new grant is a new URL, which the player would load again from the start.
  const [viewing, setViewing] = useState<Episode | null>(null);
  if (episode.data && viewing?.id !== episode.data.id) setViewing(episode.data);
  const shown = episode.data && viewing?.id === episode.data.id ? viewing : episode.data;
  // The next episode's grant once this one plays (not sooner: its start has the network and the
  // server to itself): the player preloads the next start, and a swipe finds it answered.
  const [playingId, setPlayingId] = useState<string | null>(null);
  const upcoming = usePlayableEpisode(shown && playingId === shown.id && next?.ready && !next.locked ? next.id : undefined);
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
          url={shown?.playback.url}
          preloadUrl={upcoming.data?.playback.url}
          subtitles={shown?.subtitles}
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
          onPause={history.onStop}
          onPosition={(seconds) => {
            history.onPosition(seconds);
            if (seconds > 0 && shown) setPlayingId(shown.id);
          }}
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
