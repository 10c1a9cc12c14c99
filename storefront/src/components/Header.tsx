import { useEffect, useRef } from 'react';
import { Link, NavLink } from 'react-router-dom';
import { useTags } from '../api/catalogQueries';
import { useCurrentUser } from '../api/userQueries';
import { useT } from '../i18n/I18nProvider';
import { formatDate } from '../lib/format';
import { CoinIcon, CrownIcon, SearchIcon, UserIcon } from './Icons';
import { LanguageChooser } from './LanguageChooser';
import { Logo } from './Logo';

export function Header() {
  const t = useT();
  const tags = useTags();
  const user = useCurrentUser().data;
  const coins = user?.coins ?? 0;
  const wallet = [
    `${t('account.coins')}: ${coins}`,
    user?.vip ? `${t('account.planVip')}, ${t(user.vip.cancelAtPeriodEnd ? 'account.ends' : 'account.renews', { date: formatDate(user.vip.renewsAt) })}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
  const categories = useRef<HTMLDetailsElement>(null);

  // The categories menu closes on a click elsewhere or on Escape, like any menu.
  useEffect(() => {
    const close = (event: Event) => {
      const menu = categories.current;
      if (!menu?.open) return;
      if (event instanceof KeyboardEvent ? event.key === 'Escape' : !menu.contains(event.target as Node)) menu.open = false;
    };
    document.addEventListener('click', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('click', close);
      document.removeEventListener('keydown', close);
    };
  }, []);

  return (
    <header className="header">
      <div className="header__inner">
        <Link to="/" className="header__logo" aria-label={`${t('app.name')} — ${t('nav.home')}`}>
          <Logo />
        </Link>
        <nav className="header__nav" aria-label={t('nav.main')}>
          <NavLink to="/" end className="header__link">
            {t('nav.home')}
          </NavLink>
          <NavLink to="/feed" className="header__link">
            {t('nav.feed')}
          </NavLink>
          <details className="categories" ref={categories}>
            <summary className="header__link">{t('nav.categories')}</summary>
            <ul className="categories__menu">
              {tags.data?.map((tag) => (
                <li key={tag.id}>
                  <Link
                    to={`/browse/${encodeURIComponent(tag.id)}`}
                    onClick={() => categories.current?.removeAttribute('open')}
                  >
                    {tag.name}
                  </Link>
                </li>
              ))}
            </ul>
          </details>
          <NavLink to="/favorites" className="header__link">
            {t('nav.myList')}
          </NavLink>
        </nav>
        <div className="header__actions">
          <Link to="/search" className="header__search">
            <SearchIcon size={18} />
            <span className="header__search-text">{t('search.placeholder')}</span>
            <span className="visually-hidden">{t('nav.search')}</span>
          </Link>
          <LanguageChooser />
          <Link to="/shopping" className="header__coins" aria-label={wallet} title={wallet}>
            {user?.vip && <CrownIcon size={16} className="header__vip" />}
            <CoinIcon size={18} /> {coins}
          </Link>
          <Link to={user?.kind === 'member' ? '/my' : '/login'} className="header__account">
            <UserIcon size={18} />
            <span className="header__account-text">{user?.kind === 'member' ? t('nav.account') : t('nav.signIn')}</span>
          </Link>
        </div>
      </div>
    </header>
  );
}
