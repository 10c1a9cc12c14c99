import { Link } from 'react-router-dom';
import { ApiError, type LockedEpisode } from '../../api/client';
import { useCurrentUser } from '../../api/userQueries';
import { AutoUnlockSwitch } from '../../components/AutoUnlockSwitch';
import { CoinIcon, CrownIcon } from '../../components/Icons';
import { LockIcon } from '../../components/PageIcons';
import { Sheet } from '../../components/Sheet';
import { useT } from '../../i18n/I18nProvider';
import { showToast } from '../../lib/toast';
import { useUnlockEpisode } from './queries';

interface UnlockSheetProps {
  locked: LockedEpisode;
  episodeNumber?: number;
  onClose: () => void;
}

/** The 402 data of POST /api/video/unlock: not enough coins, and what the wallet holds now. */
interface Shortage {
  priceCoins: number;
  balance: number;
}

/** Unlock one episode with coins, buy coins, or subscribe to unlock every episode; and the auto-unlock switch. */
export function UnlockSheet({ locked, episodeNumber, onClose }: UnlockSheetProps) {
  const t = useT();
  const user = useCurrentUser().data;
  const unlock = useUnlockEpisode();
  const failure = unlock.error instanceof ApiError ? unlock.error : null;
  const shortage = failure?.code === 402 ? (failure.data as Shortage | null) : null;
  const price = shortage?.priceCoins ?? locked.priceCoins;
  // The locked answer's balance is the newest: it came with this very episode's refusal.
  const balance = shortage?.balance ?? locked.balance;
  const bonus = Math.min(user?.bonusCoins ?? 0, balance);
  const enough = !shortage && balance >= price;

  // Told once the unlock is made, even if the sheet is gone by then (the episode's refetch can close it
  // first): per-call callbacks of mutate() would not run for an unmounted sheet. A failure shows in it.
  const unlockNow = () =>
    unlock.mutateAsync({ episodeId: locked.episodeId, videoId: locked.videoId, priceCoins: price }).then(
      () => {
        showToast(t('unlock.done'), 'success');
        onClose();
      },
      () => undefined,
    );

  return (
    <Sheet title={episodeNumber ? t('unlock.title', { n: episodeNumber }) : t('unlock.titleGeneric')} onClose={onClose}>
      <div className="unlock">
        <div className="unlock__price">
          <LockIcon size={28} />
          <strong>{t('unlock.price', { count: price })}</strong>
          <span>{t('unlock.balance', { count: balance })}</span>
          {bonus > 0 && <span className="unlock__bonus">{t('shop.bonusPart', { count: bonus })}</span>}
        </div>
        {failure && !shortage && (
          <p className="notice notice--error" role="alert">
            {failure.message || t('common.unknownError')}
          </p>
        )}
        {enough ? (
          <button type="button" className="button button--primary button--block" onClick={unlockNow} disabled={unlock.isPending}>
            <CoinIcon size={18} /> {t('unlock.unlock', { count: price })}
          </button>
        ) : (
          <>
            <p className="unlock__short" role={shortage ? 'alert' : undefined}>
              {t('unlock.notEnough')}
            </p>
            <Link to="/shopping#coins" className="button button--primary button--block" onClick={onClose}>
              <CoinIcon size={18} /> {t('unlock.topUp')}
            </Link>
          </>
        )}
        <Link to="/shopping#vip" className="button button--vip button--block" onClick={onClose}>
          <CrownIcon size={18} /> {t('unlock.subscribe')}
        </Link>
        <p className="unlock__hint">{t('unlock.subscribeHint')}</p>
        <AutoUnlockSwitch />
      </div>
    </Sheet>
  );
}
