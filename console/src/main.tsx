import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { ApiError } from './api';
import { App } from './App';
import { Cabinet } from './Cabinet';
import { Trader } from './Trader';
import { CABINET_DOOR, CONSOLE_DOOR, DOOR, TRADER_DOOR } from './door';
import './styles.css';
import './names.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal is an answer: no retries on 4xx; a lost session sends the person to sign in.
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});
const sessionKey = { cabinet: CABINET_DOOR, trader: TRADER_DOOR, console: CONSOLE_DOOR }[DOOR].sessionKey;
queryClient.getQueryCache().subscribe((event) => {
  const error = event.query.state.error;
  if (event.type === 'updated' && error instanceof ApiError && error.status === 401 && event.query.queryKey[0] !== sessionKey[0]) {
    void queryClient.invalidateQueries({ queryKey: sessionKey });
  }
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>{DOOR === 'cabinet' ? <Cabinet /> : DOOR === 'trader' ? <Trader /> : <App />}</QueryClientProvider>
  </StrictMode>,
);
