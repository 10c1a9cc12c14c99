// The operators' console (/admin, admin.html): its own entry and chunks, so that nothing of it is in
// the viewer's pages. It shares the viewer's React, router and query client chunk (the same files,
// already cached for someone who watches too) and brings its own table, chart and upload libraries.
import { QueryClient } from '@tanstack/react-query';
import { createRoot } from 'react-dom/client';
import { ConsoleApp } from './ConsoleApp';
import './console.css';

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false, staleTime: 10_000 } },
});

createRoot(document.getElementById('admin')!).render(<ConsoleApp queryClient={queryClient} />);
