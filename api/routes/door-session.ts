/**
 * The session routes of an account door — the console (/admin), the merchant's cabinet and the
 * trader app: sign-in, who am I, sign-out, TOTP, one's own password, and checking and accepting
 * an invitation. Every door answers them by the same rules (api/services/accounts.ts), so they
 * are defined once here; a door names its operationId prefix, tag, words, schemas and service
 * functions. Examples are looked up by operationId (api/schemas/examples.ts).
 */
import type { Context } from 'koa';
import type { ZodType } from 'zod';
import { defineRoute, type RouteDef, type RouteSpec } from '../route';
import type { Identity } from '../auth/authenticate';
import type { AppDeps } from '../deps';
import { EXAMPLES } from '../schemas/examples';
import type * as accounts from '../services/accounts';
import type { AuditActor } from '../../domain/audit';

type SignInInput = Parameters<typeof accounts.signIn>[3];
type TotpInput = Parameters<typeof accounts.enrollTotp>[4];
type OwnPasswordInput = Parameters<typeof accounts.changeOwnPassword>[4];
type AcceptInput = { token: string; password: string };

export interface Door<Account> {
  /** Starts each operationId: adminSignIn, cabinetSignIn, traderSignIn. */
  prefix: 'admin' | 'cabinet' | 'trader';
  tags: string[];
  /** The auth mode of the routes that need a signed-in account. */
  auth: 'operator' | 'cabinet' | 'trader';
  /** The signed-in account of a request, from its verified identity. */
  accountOf: (identity: Identity) => Account;
  /** Who acts, for the audit trail. */
  actorOf: (actor: AuditActor | undefined) => AuditActor;
  /** The audit trail's object type of an account, and the start of its actions (<actions>.totp_enroll). */
  audit: { objectType: string; actions: string };
  /** The signed-in routes stay open while the kill-switch is on (the cabinet). */
  openWhileDisabled?: true;
  /** The pieces of the summaries, each in a comment with the sentence it completes. */
  words: {
    /** Sign in to …: email, password and (when enrolled) a TOTP code → … */
    app: string;
    /** Who am I: …, the CSRF token and when the session ends */
    whoAmI: string;
    /** Enroll TOTP for the signed-in …; Change the signed-in …’s own password */
    signedIn: string;
    /** What … link invites to; Accept …: */
    invitation: string;
    /** (…, until when) */
    invites: string;
    /** before the … chooses a password */
    invitee: string;
    /** the … is created with the chosen password */
    created: string;
  };
  descriptions: {
    signIn: string;
    getSession?: string;
    enrollTotp: string;
    changeOwnPassword: string;
    checkInvitation: string;
    acceptInvitation: string;
  };
  schemas: {
    signInBody: ZodType<SignInInput>;
    sessionResponse: ZodType;
    totpBody: ZodType<TotpInput>;
    totpResponse: ZodType;
    ownPasswordBody: ZodType<OwnPasswordInput>;
    ownPasswordResponse: ZodType;
    invitationTokenBody: ZodType<{ token: string }>;
    invitationCheckResponse: ZodType;
    acceptInvitationBody: ZodType<AcceptInput>;
  };
  service: {
    signIn: (deps: AppDeps, ctx: Context, body: SignInInput) => Promise<unknown>;
    currentSession: (deps: AppDeps, account: Account) => Promise<unknown>;
    signOut: (deps: AppDeps, ctx: Context, account: Account, actor: AuditActor) => Promise<unknown>;
    enrollTotp: (deps: AppDeps, ctx: Context, account: Account, body: TotpInput, actor: AuditActor) => Promise<unknown>;
    changeOwnPassword: (deps: AppDeps, ctx: Context, account: Account, body: OwnPasswordInput, actor: AuditActor) => Promise<unknown>;
    checkInvitation: (deps: AppDeps, token: string) => Promise<unknown>;
    acceptInvitation: (deps: AppDeps, ctx: Context, body: AcceptInput) => Promise<unknown>;
  };
}

const example = (operationId: string) => (EXAMPLES as Record<string, RouteSpec<ZodType, ZodType, ZodType>['example']>)[operationId];

/**
 * A door's routes in two runs, as its router lists them: the session's (under /session) and the
 * invitation's (under /invitation; the console lists its own invitations' routes between them).
 */
export function doorSessionRoutes<Account>(door: Door<Account>): { session: RouteDef[]; invitation: RouteDef[] } {
  const { prefix, tags, auth, accountOf, actorOf, words, descriptions, schemas, service } = door;
  const signedInRoute = { auth, tags, ...(door.openWhileDisabled ? { openWhileDisabled: true } : {}) };
  const id = (name: string) => ({ operationId: `${prefix}${name}`, example: example(`${prefix}${name}`) });
  const session = [
    defineRoute(
      {
        method: 'post',
        path: '/session',
        ...id('SignIn'),
        auth: 'public',
        summary: `Sign in to ${words.app}: email, password and (when enrolled) a TOTP code → the session cookie and its CSRF token`,
        description: descriptions.signIn,
        tags,
        body: schemas.signInBody,
        response: schemas.sessionResponse,
        errors: [401, 429],
      },
      ({ body }, deps, ctx) => service.signIn(deps, ctx, body),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/session',
        ...id('GetSession'),
        ...signedInRoute,
        summary: `Who am I: ${words.whoAmI}, the CSRF token and when the session ends`,
        description: descriptions.getSession,
        response: schemas.sessionResponse,
      },
      ({ identity }, deps) => service.currentSession(deps, accountOf(identity)),
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/session',
        ...id('DeleteSession'),
        ...signedInRoute,
        summary: 'Sign out: the session ends at once and the cookie is cleared',
        status: 204,
        audit: { action: 'session.sign_out', objectType: door.audit.objectType, by: 'service' },
      },
      async ({ identity, actor }, deps, ctx) => {
        await service.signOut(deps, ctx, accountOf(identity), actorOf(actor));
        ctx.status = 204;
        return undefined;
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/session/totp',
        ...id('EnrollTotp'),
        ...signedInRoute,
        summary: `Enroll TOTP for the signed-in ${words.signedIn}: {} answers a new secret and otpauth URI; { secret, code, confirm_password | confirm_code } sets it`,
        description: descriptions.enrollTotp,
        body: schemas.totpBody,
        bodyOptional: true,
        response: schemas.totpResponse,
        audit: { action: `${door.audit.actions}.totp_enroll`, objectType: door.audit.objectType, by: 'service' },
      },
      ({ identity, actor, body }, deps, ctx) => service.enrollTotp(deps, ctx, accountOf(identity), body ?? {}, actorOf(actor)),
    ),
    defineRoute(
      {
        method: 'post',
        path: '/session/password',
        ...id('ChangeOwnPassword'),
        ...signedInRoute,
        summary: `Change the signed-in ${words.signedIn}’s own password: { new_password, confirm_password | confirm_code }`,
        description: descriptions.changeOwnPassword,
        body: schemas.ownPasswordBody,
        response: schemas.ownPasswordResponse,
        audit: { action: `${door.audit.actions}.password_change`, objectType: door.audit.objectType, by: 'service' },
      },
      ({ identity, actor, body }, deps, ctx) => service.changeOwnPassword(deps, ctx, accountOf(identity), body, actorOf(actor)),
    ),
  ];
  const invitation = [
    defineRoute(
      {
        method: 'post',
        path: '/invitation/check',
        ...id('CheckInvitation'),
        auth: 'public',
        summary: `What ${words.invitation} link invites to (${words.invites}, until when), before the ${words.invitee} chooses a password`,
        description: descriptions.checkInvitation,
        tags,
        body: schemas.invitationTokenBody,
        response: schemas.invitationCheckResponse,
        errors: [404],
      },
      ({ body }, deps) => service.checkInvitation(deps, body.token),
    ),
    defineRoute(
      {
        method: 'post',
        path: '/invitation/accept',
        ...id('AcceptInvitation'),
        auth: 'public',
        summary: `Accept ${words.invitation}: the ${words.created} is created with the chosen password and signed in (the session cookie, as sign-in)`,
        description: descriptions.acceptInvitation,
        tags,
        body: schemas.acceptInvitationBody,
        status: 201,
        response: schemas.sessionResponse,
        errors: [404, 409],
      },
      ({ body }, deps, ctx) => service.acceptInvitation(deps, ctx, body),
    ),
  ];
  return { session, invitation };
}
