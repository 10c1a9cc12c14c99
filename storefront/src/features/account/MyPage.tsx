import { Link } from 'react-router-dom';
import { usePayments } from '../../api/paymentQueries';
import { useCurrentUser } from '../../api/userQueries';
import { AutoUnlockSwitch } from '../../components/AutoUnlockSwitch';
import { CheckinCard } from '../../components/CheckinCard';
import { BookmarkIcon, CoinIcon, CrownIcon, UserIcon } from '../../components/Icons';
import { ChevronRightIcon, HistoryIcon, LogoutIcon, UnlockIcon } from '../../components/PageIcons';
import { LanguageChooser } from '../../components/LanguageChooser';
import { useT } from '../../i18n/I18nProvider';
import { formatDate } from '../../lib/format';
import { showToast } from '../../lib/toast';
import { useDocumentTitle } from '../../lib/useDocumentTitle';
import { useLogout } from './queries';
import './account.css';

/** /my: who I am, my coins and plan, and the way to everything that is mine. */
export function MyPage() {
  const t = useT();
  const user = useCurrentUser().data;
  const logout = useLogout();
  // A renewal that failed waits for a new card, which /shopping takes.
  const pastDue = usePayments().data?.pages[0]?.subscription?.status === 'past_due';
  useDocumentTitle(t('account.title'));
  const member = user?.kind === 'member';
  const links = [
    { to: '/favorites', label: t('lists.favorites'), icon: <BookmarkIcon /> },
    { to: '/historys', label: t('lists.history'), icon: <HistoryIcon /> },
    { to: '/unlocked', label: t('lists.unlocked'), icon: <UnlockIcon /> },
    { to: '/shopping', label: t('shop.title'), icon: <CoinIcon /> },
    { to: '/individual', label: t('account.details'), icon: <UserIcon /> },
  ];
  return (
    <div className="page account">
      <h1 className="visually-hidden">{t('account.title')}</h1>
      <section className="profile">
        <span className="profile__avatar" aria-hidden="true">
          {user?.email ? user.email.charAt(0).toUpperCase() : <UserIcon size={30} />}
        </span>
        <div className="profile__who">
          <p className="profile__name">{member ? user?.email : t('account.guest')}</p>
          <p className="profile__kind">
            {user?.vip ? (
              <span className="badge badge--vip">
                <CrownIcon size={14} /> {t('account.planVip')} ·{' '}
                {t(user.vip.cancelAtPeriodEnd ? 'account.ends' : 'account.renews', { date: formatDate(user.vip.renewsAt) })}
              </span>
            ) : (
              <span className="badge">{member ? t('account.member') : t('account.guestHint')}</span>
            )}
          </p>
        </div>
      </section>
      {pastDue && (
        <p className="notice notice--error" role="alert">
          {t('renew.title')}{' '}
          <Link to="/shopping#renew">{t('account.updateCard')}</Link>
        </p>
      )}
      {!member && (
        <div className="account__cta">
          <Link to="/login" className="button button--primary">{t('auth.login')}</Link>
          <Link to="/register" className="button button--ghost">{t('auth.register')}</Link>
        </div>
      )}
      <section className="stats" aria-label={t('account.details')}>
        <div className="stat">
          <span className="stat__label">{t('account.coins')}</span>
          <strong className="stat__value" data-testid="coins">
            <CoinIcon size={18} /> {user?.coins ?? 0}
          </strong>
          {user && user.bonusCoins > 0 && <span className="stat__note">{t('shop.bonusPart', { count: user.bonusCoins })}</span>}
          <Link to="/shopping" className="stat__link">{t('account.topUp')}</Link>
        </div>
        <div className="stat">
          <span className="stat__label">{t('account.plan')}</span>
          <strong className="stat__value">{user?.vip ? t('account.planVip') : t('account.planFree')}</strong>
          {user?.vip ? (
            <Link to="/shopping" className="stat__link">
              {t(user.vip.cancelAtPeriodEnd ? 'account.ends' : 'account.renews', { date: formatDate(user.vip.renewsAt) })}
            </Link>
          ) : (
            <Link to="/shopping#vip" className="stat__link">
              {t('account.goVip')}
            </Link>
          )}
        </div>
      </section>
      <CheckinCard />
      <AutoUnlockSwitch />
      <nav aria-label={t('account.title')}>
        <ul className="menu">
          {links.map((link) => (
            <li key={link.to}>
              <Link to={link.to} className="menu__item">
                {link.icon}
                <span>{link.label}</span>
                <ChevronRightIcon size={18} className="menu__chevron" />
              </Link>
            </li>
          ))}
          <li className="menu__item menu__item--static">
            <span>{t('language.label')}</span>
            <LanguageChooser />
          </li>
          {member && (
            <li>
              <button
                type="button"
                className="menu__item menu__item--danger"
                onClick={() => logout.mutate(undefined, { onSettled: () => showToast(t('auth.loggedOut'), 'info') })}
              >
                <LogoutIcon />
                <span>{t('auth.logout')}</span>
              </button>
            </li>
          )}
        </ul>
      </nav>
    </div>
  );
}
