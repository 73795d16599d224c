/**
 * The merchant cabinet (/cabinet): the console's base at the merchant's door — the same sign-in,
 * invitation and authenticator pages (door.ts: CABINET_DOOR), the cabinet session (cookie
 * gw_merchant, its CSRF token through api.ts), and for now one page: the member, its merchant and
 * the merchant's profile. The cabinet's own pages come next (docs/cabinet.md).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, setCsrfToken, unwrap, type Schemas } from './api';
import { CABINET_DOOR } from './door';
import { navigate, useRoute } from './router';
import { ErrorText, Loading } from './ui';
import { EnrolAuthenticator, Invitation } from './pages/Invitation';
import { SignIn } from './pages/SignIn';
import { Text } from './text';

type CabinetSession = Schemas['CabinetSession'];

function useCabinetSession() {
  return useQuery({
    queryKey: CABINET_DOOR.sessionKey,
    queryFn: async (): Promise<CabinetSession | null> => {
      try {
        const session = await unwrap(api.GET('/api/v1/p2p/cabinet/session'));
        setCsrfToken(session.csrf_token);
        return session;
      } catch (error) {
        // 401: no session; 403: another door's (a member's session at the console, an operator's at the cabinet) — sign in here.
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
    mutationFn: () => unwrap(api.DELETE('/api/v1/p2p/cabinet/session')),
    onSuccess: () => {
      setCsrfToken('');
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== CABINET_DOOR.sessionKey[0] });
      queryClient.setQueryData(CABINET_DOOR.sessionKey, null);
      navigate('/', true);
    },
  });
}

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
        <strong>Merchant cabinet</strong>
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
        <h1 data-testid="merchant-name">
          <Text value={merchant.name} />
        </h1>
        <Profile />
      </main>
    </>
  );
}

/** The merchant's profile as the cabinet reads it (GET /my-merchant). */
function Profile() {
  const profile = useQuery({ queryKey: ['my-merchant'], queryFn: () => unwrap(api.GET('/api/v1/p2p/my-merchant')) });
  if (profile.isPending) return <Loading what="the profile" />;
  if (profile.error) return <ErrorText error={profile.error} />;
  const m = profile.data.merchant;
  return (
    <dl data-testid="profile">
      <dt>Merchant id</dt>
      <dd className="mono">{m.id}</dd>
      <dt>Webhook URL</dt>
      <dd>
        <Text value={m.webhook_url || 'none'} />
      </dd>
      <dt>Kill-switch</dt>
      <dd>{m.kill_switch ? 'on: the merchant is disabled' : 'off'}</dd>
    </dl>
  );
}
