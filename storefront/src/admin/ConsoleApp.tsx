import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react';
import { BrowserRouter, Link, Route, Routes, useLocation } from 'react-router-dom';
import { onSignedOut, readCredential, signOut, type Credential } from './api';
import { ConsoleI18nProvider, useConsoleI18n } from './i18n';
import { Loading } from './Loading';
import { ConsoleRoleProvider, useMayAct } from './role';
import { SignIn } from './SignIn';
import { CONSOLE_LANGUAGES, type ConsoleKey, type ConsoleLanguage } from './texts';

// Each section a chunk of its own: the chart (uPlot) and the uploads (tus-js-client) load with theirs.
const OrdersPage = lazy(() => import('./orders/OrdersPage'));
const UserPage = lazy(() => import('./users/UserPage'));
const AnalyticsPage = lazy(() => import('./analytics/AnalyticsPage'));
const OperationsPage = lazy(() => import('./operations/OperationsPage'));
const ContentPage = lazy(() => import('./content/ContentPage'));
const PlansPage = lazy(() => import('./plans/PlansPage'));
const PeoplePage = lazy(() => import('./people/PeoplePage'));
const AuditPage = lazy(() => import('./audit/AuditPage'));

/** The sections; one marked `admin` is not offered to an operator (the API would refuse its every call). */
const SECTIONS: { path: string; label: ConsoleKey; admin?: true }[] = [
  { path: '/admin', label: 'nav.orders' },
  { path: '/admin/analytics', label: 'nav.analytics' },
  { path: '/admin/operations', label: 'nav.operations' },
  { path: '/admin/content', label: 'nav.content' },
  { path: '/admin/plans', label: 'nav.plans' },
  { path: '/admin/people', label: 'nav.people', admin: true },
  { path: '/admin/audit', label: 'nav.audit' },
];

export function ConsoleApp({ queryClient, language, router = true }: { queryClient: QueryClient; language?: ConsoleLanguage; router?: boolean }) {
  const body = (
    <ConsoleI18nProvider initial={language}>
      <Console queryClient={queryClient} />
    </ConsoleI18nProvider>
  );
  return <QueryClientProvider client={queryClient}>{router ? <BrowserRouter>{body}</BrowserRouter> : body}</QueryClientProvider>;
}

function Console({ queryClient }: { queryClient: QueryClient }) {
  const [credential, setCredential] = useState<Credential | null>(readCredential);
  useEffect(
    () =>
      onSignedOut(() => {
        void signOut(null);
        queryClient.clear();
        setCredential(null);
      }),
    [queryClient],
  );
  const leave = async () => {
    await signOut(credential);
    queryClient.clear();
    setCredential(null);
  };
  if (!credential) {
    return (
      <Frame credential={null}>
        <SignIn onSignedIn={setCredential} />
      </Frame>
    );
  }
  return (
    <ConsoleRoleProvider credential={credential}>
      <Frame credential={credential} onSignOut={leave}>
        <main id="console-main" className="console-main">
          <Suspense fallback={<Loading />}>
            <Routes>
              <Route path="/admin" element={<OrdersPage />} />
              <Route path="/admin/orders" element={<OrdersPage />} />
              <Route path="/admin/users/:id" element={<UserPage />} />
              <Route path="/admin/users" element={<UserPage />} />
              <Route path="/admin/analytics" element={<AnalyticsPage />} />
              <Route path="/admin/operations" element={<OperationsPage />} />
              <Route path="/admin/content" element={<ContentPage />} />
              <Route path="/admin/plans" element={<PlansPage />} />
              <Route path="/admin/people" element={<PeoplePage />} />
              <Route path="/admin/audit" element={<AuditPage />} />
              <Route path="*" element={<OrdersPage />} />
            </Routes>
          </Suspense>
        </main>
      </Frame>
    </ConsoleRoleProvider>
  );
}

function Frame({ credential, onSignOut, children }: { credential: Credential | null; onSignOut?: () => void; children: ReactNode }) {
  const { t, language, setLanguage } = useConsoleI18n();
  const { pathname } = useLocation();
  const isAdmin = useMayAct('admin');
  const current = (path: string) => (path === '/admin' ? pathname === '/admin' || pathname === '/admin/' || pathname.startsWith('/admin/orders') || pathname.startsWith('/admin/users') : pathname.startsWith(path));
  return (
    <div className="console">
      <a className="console-skip" href="#console-main">
        {t('skipToContent')}
      </a>
      <header className="console-header">
        <span className="console-brand">{t('title')}</span>
        {credential && (
          <nav aria-label={t('nav.main')} className="console-nav">
            {SECTIONS.filter((section) => !section.admin || isAdmin).map((section) => (
              <Link key={section.path} to={section.path} aria-current={current(section.path) ? 'page' : undefined}>
                {t(section.label)}
              </Link>
            ))}
          </nav>
        )}
        <div className="console-account">
          <label>
            <span className="console-visually-hidden">{t('language')}</span>
            <select value={language} onChange={(event) => setLanguage(event.target.value as ConsoleLanguage)}>
              {CONSOLE_LANGUAGES.map((entry) => (
                <option key={entry.code} value={entry.code} lang={entry.htmlLang}>
                  {entry.name}
                </option>
              ))}
            </select>
          </label>
          {credential && (
            <>
              <span className="console-muted console-who">{t('signIn.signedInAs', { who: credential.kind === 'session' ? credential.email : t('signIn.adminToken') })}</span>
              <button type="button" className="console-button" onClick={onSignOut}>
                {t('signIn.signOut')}
              </button>
            </>
          )}
        </div>
      </header>
      {children}
    </div>
  );
}
