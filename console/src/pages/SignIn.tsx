/** Sign-in at a door (the console's, the cabinet's): email, password and, when the account has one, a code of its authenticator. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { setCsrfToken } from '../api';
import type { AccountDoor } from '../door';
import { ErrorText, Field } from '../ui';

export function SignIn({ door }: { door: AccountDoor }) {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  // The API answers the same 401 whether a code was missing or anything else was wrong (it tells
  // nobody which emails exist or have TOTP), so the person says it: the code field is behind a toggle.
  const [withCode, setWithCode] = useState(false);
  const signIn = useMutation({
    mutationFn: () => door.signIn({ email, password, ...(withCode && code ? { totp_code: code } : {}) }),
    onSuccess: (session) => {
      setCsrfToken(session.csrf_token);
      queryClient.setQueryData(door.sessionKey, session);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate();
  };
  return (
    <main className="signin">
      <h1>{door.title}</h1>
      <form onSubmit={submit} aria-label="Sign in">
        <Field label="Email">
          <input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field label="Password">
          <input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
        <label className="check">
          <input type="checkbox" checked={withCode} onChange={(e) => setWithCode(e.target.checked)} /> I use an authenticator code
        </label>
        {withCode && (
          <Field label="Authenticator code" hint="The 6 digits your authenticator app shows now.">
            <input inputMode="numeric" autoComplete="one-time-code" pattern="\d{6}" required value={code} onChange={(e) => setCode(e.target.value.trim())} />
          </Field>
        )}
        <button type="submit" className="primary" disabled={signIn.isPending}>
          Sign in
        </button>
        <ErrorText error={signIn.error} />
        {signIn.error && !withCode && <p className="muted">If your account uses an authenticator, tick “I use an authenticator code” and enter it.</p>}
      </form>
    </main>
  );
}
