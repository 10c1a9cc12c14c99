import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { StrictMode, type ReactNode } from 'react';
import { I18nProvider, type LoadedLanguage } from './i18n/I18nProvider';

/**
 * The app around its router (`children`): one tree for the browser (main.tsx) and the gateway
 * (entry-server.tsx), so that the browser's first render can take the gateway's markup over as it is
 * (lib/takeover.ts): the ids of useId, for one, follow the tree.
 */
export function App({ queryClient, initial, children }: { queryClient: QueryClient; initial: LoadedLanguage; children: ReactNode }) {
  return (
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <I18nProvider initial={initial}>{children}</I18nProvider>
      </QueryClientProvider>
    </StrictMode>
  );
}
