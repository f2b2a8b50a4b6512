// The page's entry: pick the transport for where we run (Electron preload or the web host's HTTP
// API), hand it to the component tree, and show the installed packs. The full Package Manager UI
// grows from here (issue 8); this page is the smallest real consumer of the contract.

import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { connect } from './api/connect.ts';
import { ContractClientProvider, useContractQuery } from './api/client-context.tsx';

function InstalledPacks() {
  const packs = useContractQuery('packs.list', {});
  const modules = useContractQuery('catalog.summaries', {});
  if (packs.isPending || modules.isPending) return <p>Loading…</p>;
  if (packs.isError) return <p role="alert">{packs.error.message}</p>;
  if (modules.isError) return <p role="alert">{modules.error.message}</p>;
  return (
    <section aria-labelledby="installed">
      <h2 id="installed">Installed packs</h2>
      {packs.data.packs.length === 0 ? (
        <p>No packs installed yet.</p>
      ) : (
        <ul>
          {packs.data.packs.map((pack) => (
            <li key={pack.name}>
              <strong>{pack.name}</strong> {pack.version} — {pack.status === 'active' ? 'active' : 'waiting for your trust'} ({pack.installMode})
            </li>
          ))}
        </ul>
      )}
      <h2>Sandbox modules</h2>
      <ul>
        {modules.data.modules.map((module) => (
          <li key={module.specifier}>
            <code>{module.specifier}</code> — {module.status === 'ready' ? module.summary : `skipped: ${module.reason ?? module.code ?? ''}`}
          </li>
        ))}
      </ul>
    </section>
  );
}

const container = document.getElementById('root');
if (container === null) throw new Error('index.html has no #root element');
const connection = connect(window);
const root = createRoot(container);
if (!connection.ok) {
  root.render(<p role="alert">{connection.message}</p>);
} else {
  const queries = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  root.render(
    <StrictMode>
      <QueryClientProvider client={queries}>
        <ContractClientProvider client={connection.client}>
          <header>
            <h1>Sandbox Packs</h1>
          </header>
          <main>
            <InstalledPacks />
          </main>
        </ContractClientProvider>
      </QueryClientProvider>
    </StrictMode>,
  );
}
