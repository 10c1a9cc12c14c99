import { NavLink } from 'react-router-dom';
import { useT } from '../i18n/I18nProvider';
import { BookmarkIcon, HomeIcon, SearchIcon, UserIcon } from './Icons';

/** The "For You" feed's tab: a vertical strip of frames with a play mark. */
const FeedIcon = () => (
  <svg width={22} height={22} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
    <rect x="5" y="2" width="14" height="20" rx="3" />
    <path d="m10 9 5 3-5 3z" fill="currentColor" />
  </svg>
);

/** The phone's bottom tab bar; hidden on wider screens, where the header carries the same links. */
export function TabBar() {
  const t = useT();
  const tabs = [
    { to: '/', label: t('nav.home'), icon: <HomeIcon />, end: true },
    { to: '/feed', label: t('nav.feed'), icon: <FeedIcon />, end: false },
    { to: '/search', label: t('nav.search'), icon: <SearchIcon />, end: false },
    { to: '/favorites', label: t('nav.myList'), icon: <BookmarkIcon />, end: false },
    { to: '/my', label: t('nav.me'), icon: <UserIcon />, end: false },
  ];
  return (
    <nav className="tabbar" aria-label={t('nav.main')} style={{ gridTemplateColumns: `repeat(${tabs.length}, 1fr)` }}>
      {tabs.map((tab) => (
        <NavLink key={tab.to} to={tab.to} end={tab.end} className="tabbar__tab">
          {tab.icon}
          <span>{tab.label}</span>
        </NavLink>
      ))}
    </nav>
  );
}
