/** Merchants as the operator manages them: create, settings, the kill-switch. */
import { z } from 'zod';
import { defineRoute } from '../../route';
import { emptyObject, int64String, line, pageSize, pageToken, uuid } from '../../schemas/common';
import { createMerchantBody, disableBody, killSwitchResponse, merchantSchema, merchantSettingsBody, presentMerchant } from '../../schemas/merchant';
import { firstOwnerInvitation, memberInviteResponse, ownerInvitationBody } from '../../schemas/cabinet';
import { inviteMember } from '../../services/members';
import { PermissionDenied } from '../../../domain/errors';
import {
  createMerchant,
  getMerchantForOperator,
  listMerchantsForOperator,
  patchMerchantSettings,
  presentMerchantForOperator,
  setKillSwitch,
  toggleKillSwitch,
} from '../../services/merchants';

const merchantParams = z.object({ merchant_id: uuid('merchant_id') });
const tags = ['Operator'];
/** The console's reads of this aggregate keep the console's tag in the API document. */
const consoleTags = ['Operator: console'];

const operatorMerchantResponse = z
  .object({
    merchant: merchantSchema.extend({
      auto_withdrawal_mode: z.enum(['AUTO_UP_TO_LIMIT', 'MANUAL_ONLY']),
      auto_withdrawal_limit_usdt_cents: int64String,
      auto_withdrawal_effective_limit_usdt_cents: int64String,
      rate_limit_per_minute: z.number().int().nullable(),
      payin_fee_bps: z.number().int(),
      payout_fee_bps: z.number().int(),
      webhook_max_retries: z.number().int(),
    }),
  })
  .openapi('OperatorMerchant');

const killSwitch = (path: string, operationId: string, summary: string) =>
  defineRoute(
    {
      method: 'post',
      path,
      operationId,
      auth: 'operator',
      summary,
      tags,
      params: merchantParams,
      response: killSwitchResponse,
      errors: [404],
      audit: { action: 'merchant.kill_switch_toggle', objectType: 'merchant', by: 'service' },
    },
    ({ params, actor }, deps) => toggleKillSwitch(deps, params.merchant_id, actor),
  );

export const merchantRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/merchants',
      operationId: 'adminListMerchants',
      auth: 'operator',
      summary: 'Merchants, newest first, optionally matching a name, email or id',
      tags: consoleTags,
      query: z.object({ search: line('search', 200).optional(), page_size: pageSize(200, 50), page_token: pageToken }),
      response: z.object({ data: z.array(operatorMerchantResponse.shape.merchant), next_page_token: z.string() }).openapi('OperatorMerchantList'),
    },
    ({ query }, deps) => listMerchantsForOperator(deps, query),
  ),
  defineRoute(
    {
      method: 'get',
      path: '/merchants/{merchant_id}',
      operationId: 'adminGetMerchant',
      auth: 'operator',
      summary: "A merchant's profile, limits and settings as the operator sees them",
      tags: consoleTags,
      params: merchantParams,
      response: operatorMerchantResponse,
      errors: [404],
    },
    ({ params }, deps) => getMerchantForOperator(deps, params.merchant_id),
  ),
  defineRoute(
    {
      method: 'post',
      path: '/merchants',
      operationId: 'adminCreateMerchant',
      auth: 'operator',
      summary: 'Create a merchant with a provisioned USDT wallet',
      tags,
      description:
        "With owner_email the merchant's first owner is invited to the cabinet in the same transaction: the answer's " +
        'owner_invitation has the invitation and its link (shown this once; the e-mail is appended to the development mailbox ' +
        'MERCHANT_MAILBOX_FILE). Audited (merchant.create, member.invite).',
      body: createMerchantBody,
      status: 201,
      response: z.object({ merchant: merchantSchema, owner_invitation: firstOwnerInvitation.optional() }).openapi('CreateMerchantResult'),
      errors: [409],
      audit: { action: 'merchant.create', objectType: 'merchant', by: 'service' },
    },
    async ({ body, actor }, deps) => {
      const { merchant: row, ownerInvitation } = await createMerchant(
        deps,
        {
          name: body.name,
          email: body.email,
          webhook_url: body.webhook_url ?? '',
          api_version: body.api_version ?? 'v2',
          rate_limit_per_minute: body.rate_limit_per_minute ?? null,
          payin_fee_bps: body.payin_fee_bps ?? 0,
          payout_fee_bps: body.payout_fee_bps ?? 0,
          sandbox: body.sandbox ?? false,
        },
        actor,
        body.owner_email,
      );
      if (!ownerInvitation) return { merchant: presentMerchant(row) };
      const { invite_url, ...invitation } = ownerInvitation;
      return { merchant: presentMerchant(row), owner_invitation: { invitation, invite_url } };
    },
  ),
  defineRoute(
    {
      method: 'post',
      path: '/merchants/{merchant_id}/owner-invitations',
      operationId: 'adminInviteMerchantOwner',
      auth: 'operator',
      summary: "Invite an owner to a merchant's cabinet: its first (a merchant made without one) or a new one (the owners lost their access)",
      description:
        'As the owner’s own invitations (POST /api/v1/p2p/cabinet/team/invitations) with the role owner: the link is answered this ' +
        'once and written to the development mailbox MERCHANT_MAILBOX_FILE; it works once, for OPERATOR_INVITE_TTL_SECONDS. 409 ' +
        'when a cabinet account has the email. Audited (member.invite, the operator as actor).',
      tags,
      params: merchantParams,
      body: ownerInvitationBody,
      status: 201,
      response: memberInviteResponse,
      errors: [404, 409],
      audit: { action: 'member.invite', objectType: 'member_invitation', by: 'service' },
    },
    async ({ params, body, actor }, deps) => {
      if (!actor) throw new PermissionDenied('operator identity required');
      return inviteMember(deps, params.merchant_id, { email: body.email, role: 'owner' }, actor);
    },
  ),
  killSwitch('/merchants/{merchant_id}/kill-switch', 'adminToggleKillSwitch', 'Toggle the kill-switch of a merchant (admin alias)'),
  defineRoute(
    {
      method: 'patch',
      path: '/merchants/{merchant_id}',
      operationId: 'adminUpdateMerchant',
      auth: 'operator',
      summary:
        'Merchant settings by the operator: auto-withdrawal mode and limit, rate limit, fees, webhook retries, signature binding, IP whitelist, deal limits',
      description:
        'The merchant reads auto_withdrawal_mode and auto_withdrawal_effective_limit_usdt_cents in its profile but cannot change them. ' +
        'ip_whitelist and the deal limits are the ones the merchant also sets in its cabinet (same rules). Audited with before and after.',
      tags,
      params: merchantParams,
      body: merchantSettingsBody,
      response: operatorMerchantResponse,
      errors: [404],
      audit: { action: 'merchant.update_settings', objectType: 'merchant', by: 'service' },
    },
    async ({ params, body, actor }, deps) => ({ merchant: presentMerchantForOperator(await patchMerchantSettings(deps, params.merchant_id, body, actor)) }),
  ),
];

/** The kill-switch at its spec paths directly under /api/v1/p2p. */
export const merchantP2pRoutes = [
  killSwitch('/merchants/{merchant_id}/kill-switch', 'toggleKillSwitch', 'Toggle the kill-switch of a merchant'),
  defineRoute(
    {
      method: 'post',
      path: '/merchant/{merchant_id}/enable',
      operationId: 'enableMerchant',
      auth: 'operator',
      summary: 'Clear the kill-switch (nullifies disabled_at)',
      tags,
      params: merchantParams,
      body: emptyObject.passthrough(),
      bodyOptional: true,
      response: emptyObject,
      errors: [404],
      audit: { action: 'merchant.enable', objectType: 'merchant', by: 'service' },
    },
    async ({ params, actor }, deps) => {
      await setKillSwitch(deps, params.merchant_id, false, undefined, actor);
      return {};
    },
  ),
  ...(['disable', 'activate'] as const).map((action) =>
    defineRoute(
      {
        method: 'post',
        path: `/merchant/{merchant_id}/${action}`,
        operationId: action === 'disable' ? 'disableMerchant' : 'activateMerchant',
        auth: 'operator',
        summary: `Turn the kill-switch on (${action}): sets disabled_at; later merchant requests get 403`,
        description: 'Answers the kill-switch result. Optional body { reason } is shown as kill_switch_reason.',
        tags,
        params: merchantParams,
        body: disableBody,
        bodyOptional: true,
        response: killSwitchResponse,
        errors: [404],
        audit: { action: 'merchant.disable', objectType: 'merchant', by: 'service' },
      },
      ({ params, body, actor }, deps) => setKillSwitch(deps, params.merchant_id, true, body?.reason ?? '', actor),
    ),
  ),
];
