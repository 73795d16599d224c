/**
 * The trader app (/trader): the console's base at the traders' door — the same sign-in, invitation
 * and authenticator pages (door.ts: TRADER_DOOR), the trader's session (cookie gw_trader, its CSRF
 * token through api.ts), and the trader's sections (SECTIONS), one file each under trader/
 * (docs/trader.md). Phone-first: on a narrow screen the sections are a tab bar at the bottom, in
 * reach of the thumb, and every action is a full-width button.
 */
import type { ReactElement } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, setCsrfToken, unwrap, type Schemas } from './api';
import { TRADER_DOOR } from './door';
import { Link, navigate, useRoute } from './router';
import { ErrorText, Loading } from './ui';
import { EnrolAuthenticator, Invitation } from './pages/Invitation';
import { SignIn } from './pages/SignIn';
import { Text } from './text';
import { TraderHome } from './trader/Home';
import { TraderRequisites } from './trader/Requisites';
import { PresenceSwitch } from './trader/Presence';
import { TraderDeals } from './trader/Deals';
import { TraderAppeals } from './trader/Appeals';
import { TraderWallet } from './trader/Wallet';

/** The trader app's sections: path below /trader, label, page (each page file owns its sub-routes). */
const SECTIONS: Array<[string, string, () => ReactElement]> = [
  ['/', 'Today', TraderHome],
  ['/requisites', 'Requisites', TraderRequisites],
  ['/deals', 'Deals', TraderDeals],
  ['/appeals', 'Disputes', TraderAppeals],
  ['/wallet', 'Wallet', TraderWallet],
];

/** The section a path belongs to: its first segment. */
const sectionOf = (path: string) => SECTIONS.find(([to]) => (to === '/' ? path === '/' : path === to || path.startsWith(`${to}/`)));

export type TraderSession = Schemas['TraderSession'];

export function useTraderSession() {
  return useQuery({
    queryKey: TRADER_DOOR.sessionKey,
    queryFn: async (): Promise<TraderSession | null> => {
      try {
        const session = await unwrap(api.GET('/api/v1/p2p/trader/session'));
        setCsrfToken(session.csrf_token);
        return session;
      } catch (error) {
        // 401: no session; 403: another door's session (an operator's, a merchant member's) — sign in here.
        if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return null;
        throw error;
      }
    },
    staleTime: 60_000,
  });
}

function useSignOut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/p2p/trader/session')),
    onSuccess: () => {
      setCsrfToken('');
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== TRADER_DOOR.sessionKey[0] });
      queryClient.setQueryData(TRADER_DOOR.sessionKey, null);
      navigate('/', true);
    },
  });
}

export function Trader() {
  const session = useTraderSession();
  const { path } = useRoute();
  const signOut = useSignOut();
  // An invitation's link is answered whoever is signed in here: it is about another account.
  if (path === '/invitation') return <Invitation door={TRADER_DOOR} />;
  if (session.isPending) return <Loading what="the trader app" />;
  if (session.error) return <ErrorText error={session.error} />;
  if (!session.data) return <SignIn door={TRADER_DOOR} />;
  const { account, trader } = session.data;
  if (account.totp_required && !account.totp_enrolled) {
    return (
      <>
        <EnrolAuthenticator door={TRADER_DOOR} person={account} onSignOut={() => signOut.mutate()} />
        <ErrorText error={signOut.error} />
      </>
    );
  }
  return (
    <div className="trader-app">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header>
        <strong data-testid="trader-name">
          <Text value={trader.name} />
        </strong>
        {!trader.approved && <span className="badge">waiting for approval</span>}
        <PresenceSwitch />
        <nav aria-label="Sections" className="tabbar">
          {SECTIONS.map(([to, label]) => (
            <Link key={to} to={to}>
              {label}
            </Link>
          ))}
        </nav>
        <span className="who">
          <span data-testid="trader-account">
            <Text value={account.email} />
          </span>
          <button type="button" onClick={() => signOut.mutate()}>
            Sign out
          </button>
        </span>
      </header>
      <ErrorText error={signOut.error} />
      <main id="main">
        <Section path={path} />
      </main>
    </div>
  );
}

function Section({ path }: { path: string }) {
  const section = sectionOf(path);
  if (!section) {
    return (
      <>
        <h1>Not found</h1>
        <p>
          There is no page here. <Link to="/">Today</Link>
        </p>
      </>
    );
  }
  const Page = section[2];
  return <Page />;
}
