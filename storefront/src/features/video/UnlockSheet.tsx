import { Link } from 'react-router-dom';
import { ApiError, type LockedEpisode } from '../../api/client';
import { CoinIcon, CrownIcon, LockIcon } from '../../components/Icons';
import { Sheet } from '../../components/Sheet';
import { useT } from '../../i18n/I18nProvider';
import { showToast } from '../../lib/toast';
import { useUnlockEpisode } from './queries';

interface UnlockSheetProps {
  locked: LockedEpisode;
  episodeNumber?: number;
  onClose: () => void;
}

/** Unlock one episode with coins, or subscribe to unlock every episode. */
export function UnlockSheet({ locked, episodeNumber, onClose }: UnlockSheetProps) {
  const t = useT();
  const unlock = useUnlockEpisode();
  const failure = unlock.error instanceof ApiError ? unlock.error : null;
  const shortage = failure?.code === 402 ? (failure.data as { priceCoins: number; balance: number }) : null;
  const balance = shortage?.balance ?? locked.balance;
  const enough = balance >= locked.priceCoins;
  const unavailable = failure !== null && failure.code !== 402 && failure.code !== 500;

  const unlockNow = () =>
    unlock.mutate(locked.episodeId, {
      onSuccess: () => {
        showToast(t('unlock.done'), 'success');
        onClose();
      },
    });

  return (
    <Sheet title={episodeNumber ? t('unlock.title', { n: episodeNumber }) : t('unlock.titleGeneric')} onClose={onClose}>
      <div className="unlock">
        <div className="unlock__price">
          <LockIcon size={28} />
          <strong>{t('unlock.price', { count: locked.priceCoins })}</strong>
          <span>{t('unlock.balance', { count: balance })}</span>
        </div>
        {unavailable && <p className="notice">{t('unlock.unavailable')}</p>}
        {enough && !unavailable ? (
          <button type="button" className="button button--primary button--block" onClick={unlockNow} disabled={unlock.isPending}>
            <CoinIcon size={18} /> {t('unlock.unlock', { count: locked.priceCoins })}
          </button>
        ) : (
          <>
            {!unavailable && <p className="unlock__short">{t('unlock.notEnough')}</p>}
            <Link to="/shopping" className="button button--primary button--block" onClick={onClose}>
              <CoinIcon size={18} /> {t('unlock.topUp')}
            </Link>
          </>
        )}
        <Link to="/shopping" className="button button--vip button--block" onClick={onClose}>
          <CrownIcon size={18} /> {t('unlock.subscribe')}
        </Link>
        <p className="unlock__hint">{t('unlock.subscribeHint')}</p>
      </div>
    </Sheet>
  );
}
