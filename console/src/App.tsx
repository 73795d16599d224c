import { useEffect, useRef } from 'react';
import { api, unwrap } from './api';
import { useDoorSignOut } from './door-session';
import { Link, useRoute } from './router';
import { useCan, useRoleTable, useSession } from './session';
import { ErrorText, Loading } from './ui';
import { focusHeadingWhenShown } from './focus';
import { Home } from './pages/Home';
import { AppealDetail, Appeals } from './pages/Appeals';
import { Withdrawals } from './pages/Withdrawals';
import { DealDetail, Deals } from './pages/Deals';
import { MerchantDetail, Merchants } from './pages/Merchants';
import { Traders } from './pages/Traders';
import { Alerts } from './pages/Alerts';
import { BankNotifications } from './pages/BankNotifications';
import { Audit } from './pages/Audit';
import { Operators } from './pages/Operators';
import { Account } from './pages/Account';
import { SearchBox, SearchResults } from './pages/Search';
import { EnrolAuthenticator, Invitation } from './pages/Invitation';
import { SignIn } from './pages/SignIn';
import { CONSOLE_DOOR } from './door';
import { Notifications } from './notifications';
import { Text } from './text';

export function App() {
  const session = useSession();
  const roles = useRoleTable();
  const { path } = useRoute();
  // An invitation's link is answered whoever is signed in here: it is about another account.
  if (path === '/invitation') return <Invitation door={CONSOLE_DOOR} />;
  if (session.isPending || roles.isPending) return <Loading what="the console" />;
  if (session.error || roles.error) return <ErrorText error={session.error ?? roles.error} />;
  if (!session.data) return <SignIn door={CONSOLE_DOOR} />;
  if (session.data.operator.totp_required && !session.data.operator.totp_enrolled) return <EnrolGate />;
  return <Shell />;
}

/** Signs out: the session ends, everything this operator read is forgotten (the role table stays: it is the server's). */
const useSignOut = () => useDoorSignOut(CONSOLE_DOOR, () => unwrap(api.DELETE('/api/v1/p2p/admin/session')), ['role-table']);

function EnrolGate() {
  const signOut = useSignOut();
  const session = useSession().data!;
  return (
    <>
      <EnrolAuthenticator door={CONSOLE_DOOR} person={session.operator} onSignOut={() => signOut.mutate()} />
      <ErrorText error={signOut.error} />
    </>
  );
}

const NAV: Array<[string, string]> = [
  ['/', 'Home'],
  ['/appeals', 'Appeals'],
  ['/withdrawals', 'Withdrawals'],
  ['/deals', 'Deals'],
  ['/merchants', 'Merchants'],
  ['/traders', 'Traders'],
  ['/alerts', 'Alerts'],
  ['/bank-notifications', 'Bank notifications'],
  ['/audit', 'Audit log'],
  ['/operators', 'Operators'],
  ['/account', 'Your account'],
];

/**
 * A new page (not a new filter of the same one) takes the focus to its heading, as a page load
 * would start a screen reader there; the first page of a visit keeps the skip link first. A
 * component of its own: it follows the route, and must not re-render the shell (which reads the
 * session) on a navigation that signing out makes.
 */
function FocusOnNavigation() {
  const { path } = useRoute();
  const firstPath = useRef(path);
  useEffect(() => {
    if (path === firstPath.current) return;
    firstPath.current = '';
    return focusHeadingWhenShown();
  }, [path]);
  return null;
}

function Shell() {
  const session = useSession().data!;
  const can = useCan();
  const signOut = useSignOut();
  return (
    <>
      <FocusOnNavigation />
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header>
        <strong>Gateway console</strong>
        <nav aria-label="Sections">
          {NAV.filter(([to]) => to !== '/operators' || can('adminListOperators')).map(([to, label]) => (
            <Link key={to} to={to}>
              {label}
            </Link>
          ))}
        </nav>
        <SearchBox />
        {can('adminListNotifications') && <Notifications />}
        <span className="who">
          <span data-testid="operator">
            <Text value={session.operator.email} />
          </span>{' '}
          <span className="role">{session.operator.role}</span>
          {can('adminDeleteSession') && (
            <button type="button" onClick={() => signOut.mutate()}>
              Sign out
            </button>
          )}
        </span>
      </header>
      <ErrorText error={signOut.error} />
      <main id="main">
        <Page />
      </main>
    </>
  );
}

function Page() {
  const { path } = useRoute();
  const [, section, id] = path.split('/');
  switch (section) {
    case '':
    case undefined:
      return <Home />;
    case 'appeals':
      return id ? <AppealDetail id={id} /> : <Appeals />;
    case 'withdrawals':
      return <Withdrawals />;
    case 'deals':
      return id ? <DealDetail id={id} /> : <Deals />;
    case 'merchants':
      return id ? <MerchantDetail id={id} /> : <Merchants />;
    case 'traders':
      return <Traders />;
    case 'alerts':
      return <Alerts />;
    case 'bank-notifications':
      return <BankNotifications />;
    case 'audit':
      return <Audit />;
    case 'operators':
      return <Operators />;
    case 'account':
      return <Account />;
    case 'search':
      return <SearchResults />;
    default:
      return (
        <>
          <h1>Not found</h1>
          <p>
            There is no page here. <Link to="/">Home</Link>
          </p>
        </>
      );
  }
}
