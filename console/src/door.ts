/**
 * Which app this page is — the operator console (/console), the merchant cabinet (/cabinet) or the
 * trader app (/trader) — and what its people's accounts call at their door. One app, one base, one
 * session and CSRF mechanism (api.ts), a door per party: the sign-in, invitation and authenticator
 * pages are the same components at every door (docs/cabinet.md, docs/trader.md).
 */
import { api, unwrap } from './api';

export type DoorName = 'console' | 'cabinet' | 'trader';
const under = (base: string) => window.location.pathname === base || window.location.pathname.startsWith(`${base}/`);
export const DOOR: DoorName = under('/cabinet') ? 'cabinet' : under('/trader') ? 'trader' : 'console';
/** The path the app's own routes live below. */
export const BASE = `/${DOOR}`;

/** The person a session is, whatever its door. */
export interface Person {
  email: string;
  role: string;
  totp_enrolled: boolean;
  totp_required: boolean;
}

/** What an invitation link invites to. */
interface InvitationDetails {
  email: string;
  role: string;
  merchant_name?: string;
  trader_name?: string;
}

type TotpBody = { secret?: string; code?: string; confirm_password?: string; confirm_code?: string };

/** A door's calls and words: the same pages call these, never a path of their own. */
export interface AccountDoor {
  /** The app's name (the sign-in page's heading). */
  title: string;
  /** What an invitee gets (the invitation page's heading). */
  account: string;
  /** The query key of the door's session (set by sign-in and acceptance, refreshed by the authenticator's set-up). */
  sessionKey: readonly string[];
  signIn(body: { email: string; password: string; totp_code?: string }): Promise<{ csrf_token: string }>;
  check(token: string): Promise<InvitationDetails>;
  accept(token: string, password: string): Promise<{ csrf_token: string }>;
  totp(body: TotpBody): Promise<{ enrolled: boolean; secret: string; otpauth_uri: string }>;
}

export const CONSOLE_DOOR: AccountDoor = {
  title: 'Operator console',
  account: 'Your operator account',
  sessionKey: ['session'],
  signIn: (body) => unwrap(api.POST('/api/v1/p2p/admin/session', { body })),
  check: (token) => unwrap(api.POST('/api/v1/p2p/admin/invitation/check', { body: { token } })),
  accept: (token, password) => unwrap(api.POST('/api/v1/p2p/admin/invitation/accept', { body: { token, password } })),
  totp: (body) => unwrap(api.POST('/api/v1/p2p/admin/session/totp', { body })),
};

export const CABINET_DOOR: AccountDoor = {
  title: 'Merchant cabinet',
  account: 'Your cabinet account',
  sessionKey: ['cabinet-session'],
  signIn: (body) => unwrap(api.POST('/api/v1/p2p/cabinet/session', { body })),
  check: (token) => unwrap(api.POST('/api/v1/p2p/cabinet/invitation/check', { body: { token } })),
  accept: (token, password) => unwrap(api.POST('/api/v1/p2p/cabinet/invitation/accept', { body: { token, password } })),
  totp: (body) => unwrap(api.POST('/api/v1/p2p/cabinet/session/totp', { body })),
};

export const TRADER_DOOR: AccountDoor = {
  title: 'Trader app',
  account: 'Your trader account',
  sessionKey: ['trader-session'],
  signIn: (body) => unwrap(api.POST('/api/v1/p2p/trader/session', { body })),
  check: (token) => unwrap(api.POST('/api/v1/p2p/trader/invitation/check', { body: { token } })),
  accept: (token, password) => unwrap(api.POST('/api/v1/p2p/trader/invitation/accept', { body: { token, password } })),
  totp: (body) => unwrap(api.POST('/api/v1/p2p/trader/session/totp', { body })),
};
