import { Link } from 'react-router-dom';
import { useT } from '../i18n/I18nProvider';
import type { MessageKey } from '../i18n/en';
import { Logo } from './Logo';

const FOOTER_LINKS: Array<{ to: string; label: MessageKey }> = [
  { to: '/serviceAgreement', label: 'footer.terms' },
  { to: '/privacyPolicy', label: 'footer.privacy' },
  { to: '/contentPolicy', label: 'footer.content' },
  { to: '/refundPolicy', label: 'footer.refund' },
  { to: '/contactUs', label: 'footer.contact' },
  { to: '/commonQuestions', label: 'footer.faq' },
];

export function Footer({ onLogout }: { onLogout?: () => void }) {
  const t = useT();
  return (
    <footer className="footer">
      <div className="footer__inner">
        <div className="footer__brand">
          <Logo />
          <p>{t('app.tagline')}</p>
        </div>
        <nav aria-label={t('nav.footer')}>
          <ul className="footer__links">
            {FOOTER_LINKS.map((link) => (
              <li key={link.to}>
                <Link to={link.to}>{t(link.label)}</Link>
              </li>
            ))}
            {onLogout && (
              <li>
                <button type="button" className="footer__logout" onClick={onLogout}>
                  {t('auth.logout')}
                </button>
              </li>
            )}
          </ul>
        </nav>
        <p className="footer__rights">{t('footer.rights', { year: new Date().getFullYear() })}</p>
      </div>
    </footer>
  );
}
