import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router-dom';
import { I18nProvider } from './i18n/I18nProvider';
import { keepAttribution } from './lib/attribution';
import { installMonitoring } from './lib/monitoring';
import { createRouter } from './router';
import './styles/base.css';
import './styles/shell.css';
import './styles/components.css';

// Before the first call, so the current-user call already carries the landing URL's ids.
keepAttribution(window.location.search);
installMonitoring();

const queryClient = new QueryClient({
  defaultOptions: {
    // Failures are shown by the client (toasts) or in place by the page; retrying would repeat them.
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 30_000 },
  },
});

const router = createRouter();

createRoot(document.getElementById('app')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <I18nProvider>
        <RouterProvider router={router} />
      </I18nProvider>
    </QueryClientProvider>
  </StrictMode>,
);
