/**
 * An invitation's link, shown once where it was made (no e-mail is sent from here): who it is
 * for, until when it works, and a copy button. Operators, merchant owners and members alike.
 */
import { Text } from './text';
import { when } from './ui';

export function InviteLink({ email, expiresAt, url }: { email: string; expiresAt: string; url: string }) {
  return (
    <div className="invite-link" role="status">
      <p>
        Give this link to <Text value={email} /> over a safe channel (it works once, until {when(expiresAt)}, and is not shown again):
      </p>
      <p className="mono" data-testid="invite-url">
        {url}
      </p>
      <button type="button" onClick={() => void navigator.clipboard?.writeText(url)}>
        Copy the link
      </button>
    </div>
  );
}
