/**
 * The signed-in operator's own account: its password and its authenticator (TOTP). Changing
 * either takes the present password (or, when it has one, a current code of the authenticator):
 * a session alone cannot replace a credential. The other sessions end; this one stays.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api';
import { useSession } from '../session';
import { ErrorText, Field, Submit } from '../ui';
import { CONSOLE_DOOR, type AccountDoor } from '../door';
import { Text } from '../text';

export function Account() {
  const session = useSession().data!;
  return (
    <>
      <h1>Your account</h1>
      <p>
        <Text value={session.operator.email} /> <span className="badge">{session.operator.role}</span>
      </p>
      <h2>Password</h2>
      <ChangePassword enrolled={session.operator.totp_enrolled} />
      <h2>Authenticator</h2>
      <p data-testid="authenticator">
        {session.operator.totp_enrolled ? 'Sign-in asks for a code of your authenticator.' : 'No authenticator: sign-in asks only for your password.'}
      </p>
      <TotpSetup door={CONSOLE_DOOR} enrolled={session.operator.totp_enrolled} />
    </>
  );
}

/** A new password, proved with the present one (or a current authenticator code). */
function ChangePassword({ enrolled }: { enrolled: boolean }) {
  const [current, setCurrent] = useState('');
  const [code, setCode] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const change = useMutation({
    mutationFn: () => {
      if (next !== repeat) throw new Error('The new password and its repetition differ.');
      return unwrap(
        api.POST('/api/v1/p2p/admin/session/password', {
          body: { new_password: next, ...(current ? { confirm_password: current } : {}), ...(code ? { confirm_code: code } : {}) },
        }),
      );
    },
    onSuccess: () => {
      setCurrent('');
      setCode('');
      setNext('');
      setRepeat('');
    },
  });
  return (
    <form
      aria-label="Change your password"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        change.mutate();
      }}
    >
      <Field label="Present password" hint={enrolled ? 'Or, instead, a current code of your authenticator below.' : undefined}>
        <input type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} />
      </Field>
      {enrolled && (
        <Field label="Code of your authenticator (instead of the password)">
          <input inputMode="numeric" autoComplete="one-time-code" pattern="\d{6}" value={code} onChange={(e) => setCode(e.target.value.trim())} />
        </Field>
      )}
      <Field label="New password" hint="At least 12 characters.">
        <input type="password" autoComplete="new-password" required minLength={12} value={next} onChange={(e) => setNext(e.target.value)} />
      </Field>
      <Field label="New password again">
        <input type="password" autoComplete="new-password" required minLength={12} value={repeat} onChange={(e) => setRepeat(e.target.value)} />
      </Field>
      <Submit
        label="Change the password"
        mutation={change}
        done={`Password changed. ${change.data?.sessions_ended ? `${change.data.sessions_ended} other session(s) ended; ` : ''}this one stays signed in.`}
      />
    </form>
  );
}

/**
 * Setting up an authenticator (or replacing it): a new key and its otpauth:// link, a code of it,
 * and the password (or a code of the present one). Also the whole page of an account that must
 * set one up before anything else (an invited one).
 */
export function TotpSetup({ door, enrolled }: { door: AccountDoor; enrolled: boolean }) {
  const queryClient = useQueryClient();
  const [secret, setSecret] = useState<{ secret: string; otpauth_uri: string } | null>(null);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [currentCode, setCurrentCode] = useState('');
  const start = useMutation({
    mutationFn: () => door.totp({}),
    onSuccess: (answer) => setSecret({ secret: answer.secret, otpauth_uri: answer.otpauth_uri }),
  });
  const confirm = useMutation({
    mutationFn: () =>
      door.totp({ secret: secret!.secret, code, ...(password ? { confirm_password: password } : {}), ...(currentCode ? { confirm_code: currentCode } : {}) }),
    onSuccess: async () => {
      setSecret(null);
      setCode('');
      setPassword('');
      setCurrentCode('');
      await queryClient.invalidateQueries({ queryKey: door.sessionKey });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    confirm.mutate();
  };
  return (
    <>
      {confirm.isSuccess && (
        <p role="status" className="done">
          Authenticator set. Your other sessions have ended; sign-in asks for its code from now on (each code once).
        </p>
      )}
      {!secret ? (
        <>
          <button type="button" className="primary" disabled={start.isPending} onClick={() => start.mutate()}>
            {enrolled ? 'Replace the authenticator…' : 'Set up an authenticator…'}
          </button>
          <ErrorText error={start.error} />
        </>
      ) : (
        <form aria-label="Set up the authenticator" onSubmit={submit}>
          <p>Add this key to your authenticator app (or open the link on the phone that has it), then enter the code it shows.</p>
          <p className="mono" data-testid="totp-secret">
            {secret.secret}
          </p>
          <p>
            <a href={secret.otpauth_uri}>Open in the authenticator app</a>
          </p>
          <Field label="Code from the new authenticator">
            <input inputMode="numeric" autoComplete="one-time-code" pattern="\d{6}" required value={code} onChange={(e) => setCode(e.target.value.trim())} />
          </Field>
          <Field
            label="Your password"
            hint={enrolled ? 'Or, instead, a current code of the authenticator you have now.' : 'Proves it is you, not only this browser.'}
          >
            <input type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
          </Field>
          {enrolled && (
            <Field label="Code of your present authenticator">
              <input
                inputMode="numeric"
                autoComplete="one-time-code"
                pattern="\d{6}"
                value={currentCode}
                onChange={(e) => setCurrentCode(e.target.value.trim())}
              />
            </Field>
          )}
          <Submit label={enrolled ? 'Replace the authenticator' : 'Set the authenticator'} mutation={confirm} done="Done" />
          <button type="button" onClick={() => setSecret(null)}>
            Cancel
          </button>
        </form>
      )}
    </>
  );
}
