import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { StrictMode, type ReactNode } from 'react';
import { I18nProvider, type LoadedLanguage } from './i18n/I18nProvider';
import type { LanguageCode } from './i18n/languages';

/**
 * The app around its router (`children`): one tree for the browser (main.tsx) and the server renderer
 * (entry-server.tsx), so that the browser hydrates the server's markup as it is: the ids of useId,
 * for one, follow the tree. `preferred`: the visitor's language, when it is not the one `initial`
 * (the server's) renders in.
 */
export function App({ queryClient, initial, preferred, children }: { queryClient: QueryClient; initial: LoadedLanguage; preferred?: LanguageCode; children: ReactNode }) {
  return (
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <I18nProvider initial={initial} preferred={preferred}>
          {children}
        </I18nProvider>
      </QueryClientProvider>
    </StrictMode>
  );
}
