import { NavLink } from 'react-router-dom';
import { useT } from '../i18n/I18nProvider';
import { BookmarkIcon, HomeIcon, SearchIcon, UserIcon } from './Icons';

/** The phone's bottom tab bar; hidden on wider screens, where the header carries the same links. */
export function TabBar() {
  const t = useT();
  const tabs = [
    { to: '/', label: t('nav.home'), icon: <HomeIcon />, end: true },
    { to: '/search', label: t('nav.search'), icon: <SearchIcon />, end: false },
    { to: '/favorites', label: t('nav.myList'), icon: <BookmarkIcon />, end: false },
    { to: '/my', label: t('nav.me'), icon: <UserIcon />, end: false },
  ];
  return (
    <nav className="tabbar" aria-label={t('nav.main')}>
      {tabs.map((tab) => (
        <NavLink key={tab.to} to={tab.to} end={tab.end} className="tabbar__tab">
          {tab.icon}
          <span>{tab.label}</span>
        </NavLink>
      ))}
    </nav>
  );
}
