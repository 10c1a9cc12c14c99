import { useQuery } from '@tanstack/react-query';
import { useEffect, useId } from 'react';
import { useCheckIn, userQueries } from '../api/userQueries';
import { useI18n } from '../i18n/I18nProvider';
import { LANGUAGES } from '../i18n/languages';
import { showToast } from '../lib/toast';
import { CheckIcon, GiftIcon } from './PageIcons';

// The bonus grows for this many days in a row (the unlock service's reward table); the bar fills towards it.
const STREAK_DAYS = 7;
const HOUR_MS = 3_600_000;

/** "in 5 hours", "in 12 minutes", in the interface language. */
function untilText(language: string, at: string): string {
  const format = new Intl.RelativeTimeFormat(language, { numeric: 'auto' });
  const ms = Math.max(0, Date.parse(at) - Date.now());
  return ms >= HOUR_MS ? format.format(Math.round(ms / HOUR_MS), 'hour') : format.format(Math.max(1, Math.ceil(ms / 60_000)), 'minute');
}

/**
 * The daily check-in, on /my and /shopping: the streak, what today's check-in pays or, once done,
 * what tomorrow's will and when it opens. Guests check in too; the header's coins show the bonus.
 */
export function CheckinCard() {
  const { t, language } = useI18n();
  const titleId = useId();
  const status = useQuery(userQueries.checkin());
  const checkIn = useCheckIn();
  const { refetch } = status;
  const opensAt = status.data?.checkedInToday ? status.data.nextAt : null;

  // The card turns back to "check in" by itself when the viewer's next day begins.
  useEffect(() => {
    if (!opensAt) return;
    const timer = setTimeout(() => void refetch(), Math.max(0, Date.parse(opensAt) - Date.now()) + 1000);
    return () => clearTimeout(timer);
  }, [opensAt, refetch]);

  if (!status.data) return null;
  const { checkedInToday, streak, nextReward, nextAt } = status.data;
  const htmlLang = LANGUAGES.find((entry) => entry.code === language)?.htmlLang ?? 'en';
  const filled = Math.min(streak, STREAK_DAYS);

  const claim = () =>
    checkIn.mutate(undefined, {
      onSuccess: (checkin) => showToast(t('checkin.claimed', { count: checkin.coinsAwarded }), 'success'),
    });

  return (
    <section className={`checkin ${checkedInToday ? 'checkin--done' : ''}`} aria-labelledby={titleId} data-testid="checkin">
      <span className="checkin__icon" aria-hidden="true">
        <GiftIcon size={26} />
      </span>
      <div className="checkin__text">
        <h2 id={titleId} className="checkin__title">
          {t('checkin.title')}
        </h2>
        <p className="checkin__streak">
          {streak > 0 ? t(streak === 1 ? 'checkin.streakDay' : 'checkin.streakDays', { count: streak }) : t('checkin.hint')}
        </p>
        <ol className="checkin__days" aria-hidden="true">
          {Array.from({ length: STREAK_DAYS }, (_, day) => (
            <li key={day} className={day < filled ? 'checkin__day checkin__day--done' : 'checkin__day'} />
          ))}
        </ol>
        <p className="checkin__reward">{t(checkedInToday ? 'checkin.tomorrow' : 'checkin.today', { count: nextReward })}</p>
        {checkedInToday && <p className="checkin__next">{t('checkin.nextAt', { when: untilText(htmlLang, nextAt) })}</p>}
      </div>
      {checkedInToday ? (
        <span className="checkin__claimed">
          <CheckIcon size={18} /> {t('checkin.done')}
        </span>
      ) : (
        <button type="button" className="button button--vip checkin__button" disabled={checkIn.isPending} onClick={claim}>
          {t('checkin.button', { count: nextReward })}
        </button>
      )}
    </section>
  );
}
