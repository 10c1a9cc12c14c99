import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { admin, type AdminEpisode } from '../api';
import { ErrorState } from '../ErrorState';
import { useConsoleI18n } from '../i18n';
import { SubtitlesDialog } from './SubtitlesDialog';

export const WORKING = new Set(['pending', 'processing']);

export function EpisodeState({ episode }: { episode: AdminEpisode }) {
  const { t } = useConsoleI18n();
  const label =
    episode.status === 'processing' ? t('state.processing', { progress: Math.round(episode.progress ?? 0) }) : t(`state.${episode.status}`);
  return (
    <span className={`console-status console-status--${episode.status}`}>
      {label}
      {episode.error ? ` · ${episode.error}` : ''}
    </span>
  );
}

const titleOf = (episode: AdminEpisode) => `${episode.number}. ${episode.title}`;

/**
 * A series' episodes with their state, re-transcode and subtitles, in an order the operator
 * changes with "up" and "down" and then saves at once (PUT …/episodes/order): each episode takes
 * the place of the one it replaces. The moved button keeps the focus, and the new place is said.
 */
export function Episodes({ seriesId, episodes }: { seriesId: string; episodes: AdminEpisode[] }) {
  const { t } = useConsoleI18n();
  const queryClient = useQueryClient();
  const [order, setOrder] = useState<string[] | null>(null);
  const [said, setSaid] = useState('');
  const [subtitlesOf, setSubtitlesOf] = useState<AdminEpisode | null>(null);
  // Stable: the dialog moves the focus into itself whenever its onClose changes.
  const closeSubtitles = useCallback(() => setSubtitlesOf(null), []);
  const focusAfterMove = useRef<string | null>(null);
  const buttons = useRef(new Map<string, HTMLButtonElement>());
  const byId = new Map(episodes.map((episode) => [episode.id, episode]));
  // An order being made keeps the episodes it knows; one added meanwhile goes last.
  const shown = order
    ? [...order.filter((id) => byId.has(id)), ...episodes.map((episode) => episode.id).filter((id) => !order.includes(id))].map((id) => byId.get(id)!)
    : episodes;
  const places = episodes.map((episode) => episode.number);

  useEffect(() => {
    if (focusAfterMove.current) buttons.current.get(focusAfterMove.current)?.focus();
    focusAfterMove.current = null;
  });

  const refresh = () => queryClient.invalidateQueries({ queryKey: ['admin', 'video', seriesId] });
  const retranscode = useMutation({ mutationFn: admin.retranscode, onSuccess: refresh });
  const save = useMutation({
    mutationFn: (ids: string[]) => admin.reorder(seriesId, ids),
    onSuccess: async () => {
      await refresh();
      setOrder(null);
      setSaid(t('content.orderSaved'));
    },
  });

  const move = (index: number, by: -1 | 1, direction: 'up' | 'down') => {
    const ids = shown.map((episode) => episode.id);
    const [moved] = ids.splice(index, 1);
    ids.splice(index + by, 0, moved!);
    save.reset();
    setOrder(ids);
    // At the top or the bottom the button in its direction is gone: the other one takes the focus.
    const to = index + by;
    const keep = (direction === 'up' && to === 0) || (direction === 'down' && to === ids.length - 1) ? (direction === 'up' ? 'down' : 'up') : direction;
    focusAfterMove.current = `${moved}:${keep}`;
    setSaid(t('content.moved', { title: byId.get(moved!)!.title, place: places[to] ?? to + 1 }));
  };
  const ref = (key: string) => (element: HTMLButtonElement | null) => {
    if (element) buttons.current.set(key, element);
    else buttons.current.delete(key);
  };

  return (
    <>
      <div className="console-table-wrap">
        <table className="console-table console-table--cards">
          <thead>
            <tr>
              <th scope="col">{t('content.place')}</th>
              <th scope="col">{t('content.episode')}</th>
              <th scope="col">{t('content.state')}</th>
              <th scope="col">
                <span className="console-visually-hidden">{t('content.subtitles')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((episode, index) => (
              <tr key={episode.id}>
                <td data-label={t('content.place')}>
                  <span className="console-order">
                    <span>{places[index]}</span>
                    {index > 0 && (
                      <button
                        type="button"
                        className="console-button console-button--icon"
                        ref={ref(`${episode.id}:up`)}
                        aria-label={t('content.moveUp', { title: episode.title })}
                        disabled={save.isPending}
                        onClick={() => move(index, -1, 'up')}
                      >
                        ↑
                      </button>
                    )}
                    {index < shown.length - 1 && (
                      <button
                        type="button"
                        className="console-button console-button--icon"
                        ref={ref(`${episode.id}:down`)}
                        aria-label={t('content.moveDown', { title: episode.title })}
                        disabled={save.isPending}
                        onClick={() => move(index, 1, 'down')}
                      >
                        ↓
                      </button>
                    )}
                  </span>
                </td>
                <td data-label={t('content.episode')}>{order ? episode.title : titleOf(episode)}</td>
                <td data-label={t('content.state')}>
                  <EpisodeState episode={episode} />
                </td>
                <td data-label={t('content.subtitles')}>
                  <span className="console-order">
                    <button type="button" className="console-button" aria-label={`${t('content.subtitles')}: ${episode.number}`} onClick={() => setSubtitlesOf(episode)}>
                      {t('content.subtitles')}
                    </button>
                    <button
                      type="button"
                      className="console-button"
                      disabled={retranscode.isPending || WORKING.has(episode.status) || episode.status === 'ready' || episode.status === 'planned'}
                      aria-label={`${t('content.retranscode')}: ${episode.number}`}
                      onClick={() => retranscode.mutate(episode.id)}
                    >
                      {t('content.retranscode')}
                    </button>
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p role="status" className="console-muted">
        {said}
        {order && !save.isPending ? ` ${t('content.orderUnsaved')}` : ''}
      </p>
      {order && (
        <button type="button" className="console-button console-button--primary" disabled={save.isPending} onClick={() => save.mutate(shown.map((episode) => episode.id))}>
          {t('content.saveOrder')}
        </button>
      )}
      {save.isError && <ErrorState error={save.error} />}
      {retranscode.isError && <ErrorState error={retranscode.error} />}
      {subtitlesOf && <SubtitlesDialog episode={subtitlesOf} onClose={closeSubtitles} />}
    </>
  );
}
