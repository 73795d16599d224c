/**
 * The hosted payment page behind payment_url (/pay/{hash}), its static files, and its forms.
 * Each form posts to its action here and is answered 303 back to the page (POST/redirect/GET),
 * with a notice when refused; the page's script posts the same forms and shows the page the
 * redirect lands on. The deal's moves stay its workflow's ("I paid" and cancel are the same
 * updates the checkout API sends).
 */
import type { Context } from 'koa';
import { z } from 'zod';
import { DomainError, FailedPrecondition, InvalidArgument, NotFound } from '../../../domain/errors';
import { payerMayCancel, payerMayNotify, payerScreenOf } from '../../../domain/state/payer-page';
import type { CheckoutRow } from '../../../db/queries/deals';
import type { AppDeps } from '../../deps';
import { defineRoute } from '../../route';
import { payerPageAuth } from '../../auth/payer-page';
import { amountToPayAtVersion, checkoutView } from '../../services/checkout-view';
import { parseMultipart } from '../../services/files';
import { addPayerProof, CardDigitsInvalid, ProofLimitReached, ProofMissing, type PayerProofInput } from '../../services/payer-proof';
import { cancelCheckout, getCheckout, notifyCheckoutRow } from '../../services/payins';
import { ASSET_URLS, PAYER_ASSETS } from '../../pages/payer/assets';
import { payerPageHeaders, payerPrivateHeaders, setPayerCookie } from '../../pages/payer/headers';
import { matchLocale, negotiateLocale, type Locale } from '../../pages/payer/i18n';
import { isNotice, renderNotFound, renderPayerPage, type Notice } from '../../pages/payer/render';
import { tags } from './checkout';

const LANG_COOKIE = 'lang';
const SEEN_COOKIE = 'amount_seen';
const YEAR = 365 * 24 * 3600;
const WEEK = 7 * 24 * 3600;

const hashParams = z.object({ hash: z.string() });
const secureCookies = (deps: AppDeps) => deps.config.CHECKOUT_BASE_URL.startsWith('https:');
const queryText = (ctx: Context, name: string) => (typeof ctx.query[name] === 'string' ? (ctx.query[name] as string) : undefined);

/** `?lang=` (remembered in the switcher's cookie), the cookie, Accept-Language, English. */
function localeOf(ctx: Context, deps: AppDeps, given?: string): Locale {
  const asked = given ?? queryText(ctx, 'lang');
  const chosen = asked ? matchLocale(asked) : undefined;
  if (chosen) setPayerCookie(ctx, LANG_COOKIE, chosen, { path: '/pay', maxAgeSeconds: YEAR, secure: secureCookies(deps) });
  return negotiateLocale({ query: chosen, cookie: ctx.cookies.get(LANG_COOKIE), acceptLanguage: ctx.get('Accept-Language') });
}

const pageQuery = z.object({
  lang: z.string().optional().openapi({ description: 'ru, uz-Latn, uz-Cyrl, kk, tr or en: the page in that language (remembered in a cookie)' }),
  confirm: z.string().optional().openapi({ description: '`cancel`: the page asks to confirm the cancel (the form without script)' }),
  notice: z.string().optional().openapi({ description: "the outcome of the page's last form, set by its redirect" }),
});

async function renderPage(ctx: Context, deps: AppDeps, hash: string): Promise<void> {
  const locale = localeOf(ctx, deps);
  payerPageHeaders(ctx, locale);
  ctx.type = 'text/html; charset=utf-8';
  let row: CheckoutRow;
  try {
    row = await getCheckout(deps, hash);
  } catch (error) {
    if (!(error instanceof NotFound)) throw error;
    ctx.status = 404;
    ctx.body = renderNotFound(locale, ASSET_URLS);
    return;
  }
  const view = checkoutView(row);
  const screen = payerScreenOf(row.status);
  // The amount this browser last saw (a cookie of this page's path): a change since then is shown
  // old → new until acknowledged; a first visit remembers the amount it shows.
  const seenText = ctx.cookies.get(SEEN_COOKIE);
  const seen = seenText && /^[0-9]{1,18}$/.test(seenText) ? BigInt(seenText) : undefined;
  let amountChange: { from: string; seenVersion: string } | undefined;
  if (seen !== undefined && seen >= 1n && seen < row.amount_version && (screen === 'pay' || screen === 'checking')) {
    const old = await amountToPayAtVersion(deps, row, seen);
    if (old !== undefined) amountChange = { from: old.toString(), seenVersion: seen.toString() };
  }
  if (seen === undefined || seen > row.amount_version || (!amountChange && seen !== row.amount_version)) {
    setPayerCookie(ctx, SEEN_COOKIE, row.amount_version.toString(), { path: `/pay/${hash}`, maxAgeSeconds: WEEK, secure: secureCookies(deps) });
  }
  const notice = queryText(ctx, 'notice');
  ctx.body = renderPayerPage({
    hash,
    view,
    locale,
    exponent: row.currency_exponent,
    now: new Date(deps.now()),
    assets: ASSET_URLS,
    amountChange,
    notice: isNotice(notice) ? notice : undefined,
    confirmCancel: queryText(ctx, 'confirm') === 'cancel',
    maxReceiptBytes: deps.config.EVIDENCE_MAX_BYTES,
  });
}

interface PageForm {
  fields: Record<string, string>;
  receipt?: { bytes: Buffer; fileName: string };
}

async function readForm(ctx: Context, deps: AppDeps): Promise<PageForm> {
  const raw = ctx.state.rawBody as unknown;
  if (!Buffer.isBuffer(raw) || raw.length === 0) return { fields: {} };
  const { fields, file } = await parseMultipart(raw, ctx.get('Content-Type'), deps.config.EVIDENCE_MAX_BYTES, 'receipt');
  return file ? { fields, receipt: file } : { fields };
}

const proofOf = (form: PageForm): PayerProofInput => {
  const digits = (form.fields.card_last4 ?? '').replace(/\s+/g, '');
  return { ...(form.receipt ? { receipt: form.receipt } : {}), ...(digits ? { cardLast4: digits } : {}) };
};
const hasProof = (proof: PayerProofInput) => Boolean(proof.receipt || proof.cardLast4 !== undefined);

/** The notice a refusal shows on the page; anything else is not the payer's to fix and propagates. */
function noticeFor(error: unknown): Notice {
  if (!(error instanceof DomainError)) throw error;
  if (error.httpStatus === 413) return 'too_large';
  if (error instanceof ProofLimitReached) return 'proof_limit';
  if (error instanceof ProofMissing) return 'proof_missing';
  if (error instanceof CardDigitsInvalid) return 'last4';
  if (error instanceof InvalidArgument && /^(unsupported file type|the file is empty)/.test(error.message)) return 'proof_type';
  if (error instanceof FailedPrecondition || error.kind === 'CONFLICT') return 'not_allowed';
  if (error instanceof NotFound) throw error;
  return 'error';
}

/**
 * A form of the page: the action runs on the checkout read by the auth scheme, and the answer is
 * 303 back to the page in the form's language, with the action's notice (or the refusal's).
 */
async function pageAction(ctx: Context, deps: AppDeps, act: (row: CheckoutRow, form: PageForm) => Promise<Notice | undefined>): Promise<undefined> {
  payerPrivateHeaders(ctx);
  const row = ctx.state.payerCheckout as CheckoutRow;
  let notice = ctx.state.payerNotice as Notice | undefined;
  let form: PageForm = { fields: {} };
  if (!notice) {
    try {
      form = await readForm(ctx, deps);
      notice = await act(row, form);
    } catch (error) {
      notice = noticeFor(error);
    }
  }
  const locale = localeOf(ctx, deps, form.fields.lang);
  const query = new URLSearchParams({ lang: locale, ...(notice ? { notice } : {}) });
  ctx.redirect(`/pay/${row.checkout_hash}?${query.toString()}`);
  ctx.status = 303;
  return undefined;
}

const formField = (description: string) => z.string().optional().openapi({ description });
const paidForm = z
  .object({
    amount_version: formField('the amount_version the payer saw; "I paid" for an amount changed since is refused (notice=amount_changed)'),
    receipt: z
      .string()
      .optional()
      .openapi({ type: 'string', format: 'binary', description: 'optional receipt: JPEG, PNG, WEBP or PDF up to EVIDENCE_MAX_BYTES' }),
    card_last4: formField('optional: the last 4 digits of the card paid with'),
    lang: formField('the page language to return to'),
  })
  .openapi('PayerPaidForm');
const proofForm = paidForm.omit({ amount_version: true }).openapi('PayerProofForm');
const langForm = z.object({ lang: formField('the page language to return to') }).openapi('PayerPageForm');
const seenForm = z
  .object({ version: formField('the amount_version the payer acknowledges'), lang: formField('the page language to return to') })
  .openapi('PayerAmountSeenForm');

const action = (path: string, operationId: string, summary: string, description: string, form: z.ZodType) => ({
  method: 'post' as const,
  path: `/{hash}/${path}`,
  operationId,
  auth: payerPageAuth,
  summary,
  description,
  tags,
  params: hashParams,
  multipartBody: form,
  status: 303,
  responseDescription: 'See Other: back to the page (/pay/{hash}?lang=…), with notice=… when the form was refused',
});

/** A static file of the page under /pay/assets/: cached for a year under its versioned URL (?v=, assets.ts), briefly without. */
const asset = (path: string, file: string, operationId: string, summary: string, contentType: string) =>
  defineRoute(
    { method: 'get', path: `/assets/${path}`, operationId, auth: 'public', summary, tags, responseContentType: contentType },
    (_input, _deps, ctx) => {
      const content = PAYER_ASSETS[file]!;
      ctx.type = content.type;
      ctx.set('Cache-Control', ctx.query.v === content.version ? 'public, max-age=31536000, immutable' : 'public, max-age=300');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.body = content.body;
      return undefined;
    },
  );

export const pageRoutes = [
  defineRoute(
    {
      method: 'get',
      path: '/{hash}',
      operationId: 'getPaymentPage',
      auth: 'public',
      summary: 'The hosted payment page (HTML) behind payment_url',
      description:
        "One screen per deal state in the payer's language (lang, then the switcher's cookie, then Accept-Language, then en); " +
        'never cached, framed or indexed. Works without script: its forms post to the actions below.',
      tags,
      params: hashParams,
      query: pageQuery,
      responseContentType: 'text/html',
      replies: { 404: 'unknown hash: a page saying so, in the same language' },
    },
    async (_input, deps, ctx) => {
      await renderPage(ctx, deps, String(ctx.params.hash ?? ''));
      return undefined;
    },
  ),
  defineRoute(
    action(
      'paid',
      'payerPagePaid',
      '"I paid" from the page, with an optional receipt or card digits',
      'The proof (if any) is stored first (evidence pipeline: type sniffing, size cap; a few per deal), then the deal workflow gets the ' +
        'same notify update as POST /api/v1/p2p/checkout/{hash}/notify-payment. Refused without a move when amount_version is not the ' +
        "deal's (notice=amount_changed) or the proof is invalid.",
      paidForm,
    ),
    (_input, deps, ctx) =>
      pageAction(ctx, deps, async (row, form) => {
        if (row.status === 'PAYMENT_NOTIFIED') return undefined; // a second tap: already done
        if (!payerMayNotify(row.status)) return 'not_allowed';
        if ((form.fields.amount_version ?? '') !== row.amount_version.toString()) return 'amount_changed';
        const proof = proofOf(form);
        if (hasProof(proof)) await addPayerProof(deps, row, proof);
        await notifyCheckoutRow(deps, row);
        return undefined;
      }),
  ),
  defineRoute(
    action(
      'receipt',
      'payerPageProof',
      'The payer\'s proof after "I paid": a receipt and/or the card\'s last 4 digits',
      'Taken while the deal is not COMPLETED or SPAM_REJECTED (an expired deal included: a late payer says so), a few per deal.',
      proofForm,
    ),
    (_input, deps, ctx) =>
      pageAction(ctx, deps, async (row, form) => {
        const proof = proofOf(form);
        if (!hasProof(proof)) return 'proof_missing';
        await addPayerProof(deps, row, proof);
        return 'proof_saved';
      }),
  ),
  defineRoute(
    action(
      'cancel',
      'payerPageCancel',
      'The payer confirmed the cancel on the page',
      'The same cancel as POST /api/v1/p2p/checkout/{hash}/cancel, offered only before the payer said they paid.',
      langForm,
    ),
    (_input, deps, ctx) =>
      pageAction(ctx, deps, async (row) => {
        if (row.status === 'CANCELLED') return undefined;
        if (!payerMayCancel(row.status)) return 'not_allowed';
        await cancelCheckout(deps, row.checkout_hash!);
        return undefined;
      }),
  ),
  defineRoute(
    action(
      'amount-seen',
      'payerPageAmountSeen',
      'The payer acknowledged a changed amount',
      'Remembers the version in a cookie of the page; "I paid" is offered again for the new amount.',
      seenForm,
    ),
    (_input, deps, ctx) =>
      pageAction(ctx, deps, async (row, form) => {
        const version = form.fields.version ?? '';
        if (/^[0-9]{1,18}$/.test(version) && BigInt(version) >= 1n && BigInt(version) <= row.amount_version) {
          setPayerCookie(ctx, SEEN_COOKIE, version, { path: `/pay/${row.checkout_hash}`, maxAgeSeconds: WEEK, secure: secureCookies(deps) });
        }
        return undefined;
      }),
  ),
  asset('checkout.js', 'payer.js', 'getPaymentPageScript', "The payment page's script (versioned URL: cached for a year)", 'application/javascript'),
  asset('checkout.css', 'payer.css', 'getPaymentPageStyle', "The payment page's stylesheet (versioned URL: cached for a year)", 'text/css'),
  asset('favicon.svg', 'favicon.svg', 'getPaymentPageIcon', "The payment page's icon (versioned URL: cached for a year)", 'image/svg+xml'),
];
