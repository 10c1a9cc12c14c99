import type { VideoCard } from '../api/types';
import { useT } from '../i18n/I18nProvider';
import { formatCount } from '../lib/format';
import { PlayIcon } from './PageIcons';
import { LazyImage } from './LazyImage';

interface VideoTileProps {
  video: VideoCard;
  eager?: boolean;
  /** A line under the title in place of the episode count, e.g. "Continue episode 3". */
  caption?: string;
  onOpen?: () => void;
}

/**
 * A vertical 9:16 poster with title and episode count, linking to the video page. A plain link the
 * app shell follows within the app (AppShell, `data-app-link`): a page holds a hundred of them, and
 * React Router's Link costs each one several hooks in the first render.
 */
export function VideoTile({ video, eager, caption, onOpen }: VideoTileProps) {
  const t = useT();
  return (
    <a href={`/videos/${encodeURIComponent(video.id)}`} className="tile" data-app-link="" onClick={onOpen}>
      <span className="tile__poster">
        <LazyImage src={video.cover} alt="" eager={eager} />
        <span className="tile__badge">
          <PlayIcon size={11} /> {formatCount(video.playCount)}
        </span>
      </span>
      <span className="tile__title">{video.title}</span>
      <span className="tile__meta">{caption ?? t(video.episodeCount === 1 ? 'card.episode' : 'card.episodes', { count: video.episodeCount })}</span>
    </a>
  );
}
