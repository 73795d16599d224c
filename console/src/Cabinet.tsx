/**
 * The merchant cabinet (/cabinet): the console's base at the merchant's door — the same sign-in,
 * invitation and authenticator pages (door.ts: CABINET_DOOR), the cabinet session (cookie
 * gw_merchant, its CSRF token through api.ts), and the merchant's sections (SECTIONS), one file
 * each under cabinet/ (docs/cabinet.md).
 */
import { api, unwrap, type Schemas } from './api';
import { SectionPage, useDoorSession, useDoorSignOut, type Sections } from './door-session';
import { CABINET_DOOR } from './door';
import { Link, useRoute } from './router';
import { ErrorText, Loading } from './ui';
import { EnrolAuthenticator, Invitation } from './pages/Invitation';
import { SignIn } from './pages/SignIn';
import { Text } from './text';
import { CabinetHome, SandboxBadge } from './cabinet/Home';
import { CabinetDeals } from './cabinet/Deals';
import { CabinetPayouts } from './cabinet/Payouts';
import { CabinetWallet } from './cabinet/Wallet';
import { CabinetAppeals } from './cabinet/Appeals';
import { CabinetDevelopers } from './cabinet/Developers';
import { CabinetSettings } from './cabinet/Settings';
import { CabinetTeam } from './cabinet/Team';

/** The cabinet's sections: path below /cabinet, label, page (each page file owns its sub-routes). */
const SECTIONS: Sections = [
  ['/', 'Home', CabinetHome],
  ['/deals', 'Deals', CabinetDeals],
  ['/payouts', 'PayOuts', CabinetPayouts],
  ['/wallet', 'Wallet', CabinetWallet],
  ['/appeals', 'Appeals', CabinetAppeals],
  ['/developers', 'Developers', CabinetDevelopers],
  ['/settings', 'Settings', CabinetSettings],
  ['/team', 'Team', CabinetTeam],
];

type CabinetSession = Schemas['CabinetSession'];

const useCabinetSession = () => useDoorSession<CabinetSession>(CABINET_DOOR, () => unwrap(api.GET('/api/v1/p2p/cabinet/session')));
const useSignOut = () => useDoorSignOut(CABINET_DOOR, () => unwrap(api.DELETE('/api/v1/p2p/cabinet/session')));

export function Cabinet() {
  const session = useCabinetSession();
  const { path } = useRoute();
  const signOut = useSignOut();
  // An invitation's link is answered whoever is signed in here: it is about another account.
  if (path === '/invitation') return <Invitation door={CABINET_DOOR} />;
  if (session.isPending) return <Loading what="the cabinet" />;
  if (session.error) return <ErrorText error={session.error} />;
  if (!session.data) return <SignIn door={CABINET_DOOR} />;
  const { member, merchant } = session.data;
  if (member.totp_required && !member.totp_enrolled) {
    return (
      <>
        <EnrolAuthenticator door={CABINET_DOOR} person={member} onSignOut={() => signOut.mutate()} />
        <ErrorText error={signOut.error} />
      </>
    );
  }
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header>
        <strong data-testid="merchant-name">
          <Text value={merchant.name} />
        </strong>{' '}
        <SandboxBadge />
        <nav aria-label="Sections">
          {SECTIONS.map(([to, label]) => (
            <Link key={to} to={to}>
              {label}
            </Link>
          ))}
        </nav>
        <span className="who">
          <span data-testid="member">
            <Text value={member.email} />
          </span>{' '}
          <span className="role">{member.role}</span>
          <button type="button" onClick={() => signOut.mutate()}>
            Sign out
          </button>
        </span>
      </header>
      <ErrorText error={signOut.error} />
      <main id="main">
        <SectionPage sections={SECTIONS} path={path} />
      </main>
    </>
  );
}
