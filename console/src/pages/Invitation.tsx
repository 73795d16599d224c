/**
 * An invitation's link (/console/invitation#token=…, /cabinet/invitation#token=…): what it
 * invites to, a password chosen twice, then the new account is signed in at its door — and must
 * set up an authenticator before anything else (EnrolAuthenticator). The token stays in the
 * fragment: never sent in a URL, never logged.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { setCsrfToken } from '../api';
import type { AccountDoor, Person } from '../door';
import { navigate } from '../router';
import { ErrorText, Field, Loading, Submit } from '../ui';
import { TotpSetup } from './Account';
import { Text } from '../text';

const tokenOfLink = () => new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '';

export function Invitation({ door }: { door: AccountDoor }) {
  const [token] = useState(tokenOfLink);
  const queryClient = useQueryClient();
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const invitation = useQuery({
    queryKey: ['invitation', token],
    queryFn: () => door.check(token),
    enabled: token !== '',
    retry: false,
  });
  const accept = useMutation({
    mutationFn: () => {
      if (password !== repeat) throw new Error('The password and its repetition differ.');
      return door.accept(token, password);
    },
    onSuccess: (session) => {
      setCsrfToken(session.csrf_token);
      queryClient.setQueryData(door.sessionKey, session);
      // The link is spent: the address bar forgets it.
      navigate('/', true);
    },
  });
  return (
    <main className="signin">
      <h1>{door.account}</h1>
      {!token && <p role="alert">This link has no invitation in it: open the whole link you were sent.</p>}
      {token && invitation.isPending && <Loading what="the invitation" />}
      <ErrorText error={invitation.error} />
      {invitation.data && (
        <form
          aria-label="Choose your password"
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            accept.mutate();
          }}
        >
          <p>
            You are invited as <strong>{invitation.data.role}</strong>
            {invitation.data.trader_name !== undefined && (
              <>
                {' '}
                for{' '}
                <strong data-testid="invited-trader">
                  <Text value={invitation.data.trader_name} />
                </strong>
              </>
            )}
            {invitation.data.merchant_name !== undefined && (
              <>
                {' '}
                of{' '}
                <strong data-testid="invited-merchant">
                  <Text value={invitation.data.merchant_name} />
                </strong>
              </>
            )}{' '}
            with{' '}
            <strong data-testid="invited-email">
              <Text value={invitation.data.email} />
            </strong>
            . Choose a password; then set up an authenticator app, which sign-in asks for from then on. The link works once.
          </p>
          <input type="email" autoComplete="username" value={invitation.data.email} readOnly hidden />
          <Field label="Password" hint="At least 12 characters.">
            <input type="password" autoComplete="new-password" required minLength={12} value={password} onChange={(e) => setPassword(e.target.value)} />
          </Field>
          <Field label="Password again">
            <input type="password" autoComplete="new-password" required minLength={12} value={repeat} onChange={(e) => setRepeat(e.target.value)} />
          </Field>
          <Submit label="Create my account" mutation={accept} done="Signed in" />
        </form>
      )}
    </main>
  );
}

/** The whole app of an account that must set up an authenticator first: that, or sign out. */
export function EnrolAuthenticator({ door, person, onSignOut }: { door: AccountDoor; person: Person; onSignOut: () => void }) {
  return (
    <main className="signin">
      <h1>Set up your authenticator</h1>
      <p>
        <Text value={person.email} /> <span className="badge">{person.role}</span>
      </p>
      <p>
        Your account signs in with a password and a code of an authenticator app. Set the app up now; until then the {door.title.toLowerCase()} offers nothing
        else (the API refuses everything else too).
      </p>
      <TotpSetup door={door} enrolled={person.totp_enrolled} />
      <p>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </p>
    </main>
  );
}
