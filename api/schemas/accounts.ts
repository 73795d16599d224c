/** The fields every door's accounts share (the console's, the cabinet's): emails, passwords, confirmations, TOTP, invitation links. */
import { z } from 'zod';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../domain/crypto/passwords';

export const email = z.string().trim().toLowerCase().email('email must be an email address').max(254);
export const password = z
  .string({ error: 'password is required' })
  .min(MIN_PASSWORD_LENGTH, `password must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `password must be at most ${MAX_PASSWORD_LENGTH} characters`);

/** The sign-in's fields: any password length is checked (a short one simply fails), so the sign-in tells nothing about the rule. */
export const signInFields = {
  email: z.string().max(254),
  password: z.string().max(MAX_PASSWORD_LENGTH),
  totp_code: z
    .string()
    .regex(/^\d{6}$/, 'totp_code is 6 digits')
    .optional()
    .openapi({ description: 'the current code of the authenticator, when the account enrolled TOTP' }),
};

/** The signed-in account's own proof before a credential is replaced: its password, or a current code of its authenticator. */
export const confirmation = {
  confirm_password: z.string().max(MAX_PASSWORD_LENGTH).optional().openapi({ description: 'the signed-in account’s own password' }),
  confirm_code: z
    .string()
    .regex(/^\d{6}$/, 'confirm_code is 6 digits')
    .optional()
    .openapi({ description: 'a current code of the signed-in account’s own authenticator (when it has one), not used before' }),
};

export const totpFields = {
  secret: z
    .string()
    .regex(/^[A-Z2-7]{32}$/, 'secret is the base32 secret the first call answered')
    .optional(),
  code: z
    .string()
    .regex(/^\d{6}$/, 'code is 6 digits')
    .optional()
    .openapi({ description: 'a code of the new secret' }),
  ...confirmation,
};

export const ownPasswordFields = {
  new_password: password.openapi({ description: 'the new password (at least 12 characters)' }),
  ...confirmation,
};

export const invitationToken = z
  .string({ error: 'token is required' })
  .regex(/^[A-Za-z0-9_-]{43}$/, 'token is the part of the link after #token=')
  .openapi({ description: 'the token of the invitation link (after #token=)' });

export const totpResult = { enrolled: z.boolean(), secret: z.string(), otpauth_uri: z.string() };
export const ownPasswordResult = {
  changed: z.boolean(),
  sessions_ended: z.number().int().openapi({ description: 'how many other sessions of the account ended' }),
};

/** The session part of a door's GET session answer. */
export const sessionFields = {
  csrf_token: z.string().openapi({ description: "send it as X-CSRF-Token on every request but GET/HEAD; '' for a JWT (no session, no CSRF)" }),
  expires_at: z.string().openapi({ description: 'when the session ends unless a request comes first (idle timeout), never past absolute_expires_at' }),
  absolute_expires_at: z.string(),
  idle_timeout_seconds: z.number().int(),
};

/**
 * A door's invitation, its answer when made (the link, once) and its list — the same shape at every
 * door, each under its own component names (`<prefix>Invitation`, `<prefix>InviteResult`,
 * `<prefix>Invitations`) with its own roles and words.
 */
export function invitationSchemas<R extends z.ZodTypeAny>(prefix: string, role: R, words: { invitedBy: string; mailbox: string; revokedEarlier: string }) {
  const invitation = z
    .object({
      invitation_id: z.string().uuid(),
      email: z.string(),
      role,
      invited_by: z.string().openapi({ description: words.invitedBy }),
      created_at: z.string(),
      expires_at: z.string(),
      expired: z.boolean(),
    })
    .openapi(`${prefix}Invitation`);
  const inviteResult = z
    .object({
      invitation,
      invite_url: z.string().openapi({
        description: `the link to give the invitee (shown this once; also written to the development mailbox ${words.mailbox}): it works once, until expires_at`,
      }),
      revoked_earlier: z.number().int().openapi({ description: words.revokedEarlier }),
    })
    .openapi(`${prefix}InviteResult`);
  const invitations = z.object({ data: z.array(invitation) }).openapi(`${prefix}Invitations`);
  return { invitation, inviteResult, invitations };
}
