// The page's entry: pick the transport for where we run (Electron preload or the web host's HTTP
// API), hand it to the component tree, and render the app.

import './zod-jitless.ts';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { connect } from './api/connect.ts';
import { ContractClientProvider } from './api/client-context.tsx';
import { App } from './app.tsx';
import { NoTokenPage } from './ui/no-token-page.tsx';
import './styles.css';

const container = document.getElementById('root');
if (container === null) throw new Error('index.html has no #root element');
const connection = connect(window);
const root = createRoot(container);
if (!connection.ok) {
  root.render(<NoTokenPage message={connection.message} />);
} else {
  const queries = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } });
  root.render(
    <StrictMode>
      <QueryClientProvider client={queries}>
        <ContractClientProvider client={connection.client}>
          <App />
        </ContractClientProvider>
      </QueryClientProvider>
    </StrictMode>,
  );
}
