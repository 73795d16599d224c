/**
 * The trader app (/trader): the console's base at the traders' door — the same sign-in, invitation
 * and authenticator pages (door.ts: TRADER_DOOR), the trader's session (cookie gw_trader, its CSRF
 * token through api.ts), and the trader's sections (SECTIONS), one file each under trader/
 * (docs/trader.md). Phone-first: on a narrow screen the sections are a tab bar at the bottom, in
 * reach of the thumb, and every action is a full-width button.
 */
import { api, unwrap, type Schemas } from './api';
import { SectionPage, useDoorSession, useDoorSignOut, type Sections } from './door-session';
import { TRADER_DOOR } from './door';
import { Link, useRoute } from './router';
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
const SECTIONS: Sections = [
  ['/', 'Today', TraderHome],
  ['/deals', 'Deals', TraderDeals],
  ['/requisites', 'Requisites', TraderRequisites],
  ['/wallet', 'Wallet', TraderWallet],
  ['/appeals', 'Disputes', TraderAppeals],
];

export const useTraderSession = () => useDoorSession<Schemas['TraderSession']>(TRADER_DOOR, () => unwrap(api.GET('/api/v1/p2p/trader/session')));
const useSignOut = () => useDoorSignOut(TRADER_DOOR, () => unwrap(api.DELETE('/api/v1/p2p/trader/session')));

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
        <SectionPage sections={SECTIONS} path={path} />
      </main>
    </div>
  );
}
