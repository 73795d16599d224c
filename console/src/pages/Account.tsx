/**
 * The signed-in operator's own account: its authenticator (TOTP). Setting one up, or replacing
 * it, takes a code of the new one and the operator's password (or, when it has one already, a
 * current code of it): a session alone cannot bind an authenticator. The other sessions end.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api';
import { useSession } from '../session';
import { ErrorText, Field, Submit } from '../ui';
import { Text } from '../text';

export function Account() {
  const session = useSession().data!;
  const enrolled = session.operator.totp_enrolled;
  const queryClient = useQueryClient();
  const [secret, setSecret] = useState<{ secret: string; otpauth_uri: string } | null>(null);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [currentCode, setCurrentCode] = useState('');
  const start = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/p2p/admin/session/totp', { body: {} })),
    onSuccess: (answer) => setSecret({ secret: answer.secret, otpauth_uri: answer.otpauth_uri }),
  });
  const confirm = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/p2p/admin/session/totp', {
          body: { secret: secret!.secret, code, ...(password ? { confirm_password: password } : {}), ...(currentCode ? { confirm_code: currentCode } : {}) },
        }),
      ),
    onSuccess: async () => {
      setSecret(null);
      setCode('');
      setPassword('');
      setCurrentCode('');
      await queryClient.invalidateQueries({ queryKey: ['session'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    confirm.mutate();
  };
  return (
    <>
      <h1>Your account</h1>
      <p>
        <Text value={session.operator.email} /> <span className="badge">{session.operator.role}</span>
      </p>
      <h2>Authenticator</h2>
      <p data-testid="authenticator">
        {enrolled ? 'Sign-in asks for a code of your authenticator.' : 'No authenticator: sign-in asks only for your password.'}
      </p>
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
