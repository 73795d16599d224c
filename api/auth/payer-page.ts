/**
 * The payer's page forms (/pay/{hash}/…): public, their only credential the checkout hash of the
 * path. An unknown hash is 404 before a byte of the body is read; a known one reserves the
 * announced bytes against the deal's merchant's payers (api/auth/unverified-uploads.ts) and then
 * reads the body (a receipt: up to the evidence cap). The checkout row rides on ctx.state.
 */
import type { Context } from 'koa';
import { DomainError, NotFound } from '../../domain/errors';
import { findCheckout } from '../../db/queries/deals';
import { cardDataRing } from '../../db/queries/requisite-secrets';
import type { AppDeps } from '../deps';
import type { AuthOptions, AuthScheme, Identity } from './authenticate';
import { admitPayerUpload } from './unverified-uploads';

export const payerPageAuth: AuthScheme = {
  security: [],
  errors: [404, 429],
  async authenticate(ctx: Context, deps: AppDeps, options: AuthOptions): Promise<Identity> {
    const row = await findCheckout(deps.sql, cardDataRing(deps.config), String(ctx.params?.hash ?? ''));
    if (!row) throw new NotFound('checkout not found');
    ctx.state.payerCheckout = row;
    admitPayerUpload(ctx, deps, row.merchant_id, options.maxBodyBytes);
    try {
      await options.readBody();
    } catch (error) {
      // A form too large for the cap goes back to the page with a notice (a browser shows no problem+json).
      if (!(error instanceof DomainError && error.httpStatus === 413)) throw error;
      ctx.state.payerNotice = 'too_large';
    }
    return { kind: 'public' };
  },
};
