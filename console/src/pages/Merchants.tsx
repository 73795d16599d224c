import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, api, int64, unwrap, type Schemas } from '../api';
import { FilterForm, PagedTable, TextFilter, usePagedList } from '../list';
import { IdLink, Named } from '../names';
import { Link, navigate } from '../router';
import { useCan } from '../session';
import { Action, ErrorText, Field, Loading, money, Submit, when } from '../ui';
import { formatMinor, LIMITS, Money, MoneyInput, parseMajor, useExponent } from '../money';
import { Text } from '../text';
import { InviteLink } from '../invite-link';

export function Merchants() {
  const [search, setSearch] = useState('');
  const [applied, setApplied] = useState('');
  const merchants = usePagedList(['merchants', applied], (page_token) =>
    unwrap(api.GET('/api/v1/p2p/admin/merchants', { params: { query: { page_size: 25, page_token, search: applied || undefined } } })),
  );
  return (
    <>
      <h1>Merchants</h1>
      <CreateMerchant />
      <FilterForm label="Search merchants" submit="Search" onApply={() => setApplied(search.trim())}>
        <TextFilter label="Name, email or id" value={search} onChange={(e) => setSearch(e.target.value)} />
      </FilterForm>
      <PagedTable
        paged={merchants}
        what="merchants"
        caption="Merchants, newest first"
        columns={['Name', 'Email', 'Status', 'Kill-switch', 'Balance (USDT)', 'Created']}
        rowKey={(m) => m.id}
        row={(m) => (
          <tr>
            <td>
              <Named kind="merchant" id={m.id} name={m.name} />
              {m.sandbox ? (
                <>
                  {' '}
                  <span className="badge sandbox">sandbox</span>
                </>
              ) : null}
            </td>
            <td>
              <Text value={m.email} />
            </td>
            <td>{m.status}</td>
            <td>{m.kill_switch ? <span className="badge danger">ON</span> : 'off'}</td>
            <td className="num">{money(m.balance_usdt)}</td>
            <td>{when(m.created_at)}</td>
          </tr>
        )}
        empty="No merchants."
      />
    </>
  );
}

/** A new merchant (admin): name, email, webhook URL, sandbox or live; its page opens, where its keys are issued. */
function CreateMerchant() {
  const can = useCan();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [webhook, setWebhook] = useState('');
  const [sandbox, setSandbox] = useState(false);
  const [owner, setOwner] = useState('');
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/p2p/admin/merchants', {
          body: {
            name: name.trim(),
            email: email.trim(),
            ...(webhook.trim() ? { webhook_url: webhook.trim() } : {}),
            sandbox,
            ...(owner.trim() ? { owner_email: owner.trim() } : {}),
          },
        }),
      ),
    onSuccess: async (answer) => {
      await queryClient.invalidateQueries({ queryKey: ['merchants'] });
      // The owner's link is shown this once: the page stays until it is passed on.
      if (!answer.owner_invitation) navigate(`/merchants/${answer.merchant.id}`);
    },
  });
  const made = create.data;
  if (!can('adminCreateMerchant')) return null;
  return (
    <details className="create">
      <summary>Create a merchant</summary>
      <form
        aria-label="Create a merchant"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <Field label="Name">
          <input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field label="Email">
          <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field label="Webhook URL" hint="Optional; the merchant can set it later.">
          <input type="url" value={webhook} onChange={(e) => setWebhook(e.target.value)} />
        </Field>
        <Field label="First owner's email" hint="Optional: invited to the merchant's cabinet (/cabinet); the link is shown here once.">
          <input type="email" autoComplete="off" value={owner} onChange={(e) => setOwner(e.target.value)} />
        </Field>
        <label className="check">
          <input type="checkbox" checked={sandbox} onChange={(e) => setSandbox(e.target.checked)} /> Sandbox merchant (play money, the sandbox trader)
        </label>
        <p className="muted">The merchant is created with its USDT wallet; its page opens next, where you issue its API keys.</p>
        <Submit label="Create merchant" mutation={create} done="Created" />
      </form>
      {made?.owner_invitation && (
        <>
          <InviteLink
            email={made.owner_invitation.invitation.email}
            expiresAt={made.owner_invitation.invitation.expires_at}
            url={made.owner_invitation.invite_url}
          />
          <p>
            <Link to={`/merchants/${made.merchant.id}`}>
              Open <Text value={made.merchant.name} />
            </Link>
          </p>
        </>
      )}
    </details>
  );
}

export function MerchantDetail({ id }: { id: string }) {
  const can = useCan();
  const [keys, setKeys] = useState<Schemas['KeyPair'] | undefined>();
  const merchant = useQuery({
    queryKey: ['merchant', id],
    queryFn: () => unwrap(api.GET('/api/v1/p2p/admin/merchants/{merchant_id}', { params: { path: { merchant_id: id } } })),
  });
  if (merchant.isPending) return <Loading what="the merchant" />;
  if (merchant.error)
    return (
      <>
        <p>
          <Link to="/merchants">← Merchants</Link>
        </p>
        <ErrorText error={merchant.error} />
      </>
    );
  const m = merchant.data.merchant;
  return (
    <>
      <p>
        <Link to="/merchants">← Merchants</Link>
      </p>
      <h1>
        <Text value={m.name} title={m.id} />{' '}
        {m.kill_switch && (
          <span className="badge danger" data-testid="kill-switch-on">
            kill-switch ON
          </span>
        )}
      </h1>
      <section aria-labelledby="profile-h">
        <h2 id="profile-h">Profile</h2>
        <dl>
          <dt>Merchant id</dt>
          <dd>
            <IdLink kind="merchant" id={m.id} full />
          </dd>
          <dt>Email</dt>
          <dd>
            <Text value={m.email} />
          </dd>
          <dt>Status</dt>
          <dd>
            {m.status} (moderation {m.moderation_status})
          </dd>
          <dt>API version</dt>
          <dd>{m.api_version}</dd>
          <dt>Webhook URL</dt>
          <dd className="mono">{m.webhook_url || '—'}</dd>
          <dt>Balance</dt>
          <dd>
            {money(m.balance_usdt)} USDT available, {money(m.escrow_usdt)} in escrow
          </dd>
          <dt>Deposit address</dt>
          <dd className="mono">{m.trc20_address || '—'}</dd>
          <dt>Current API token</dt>
          <dd className="mono">{m.api_token || '—'}</dd>
          <dt>IP whitelist</dt>
          <dd data-testid="ip-whitelist">{m.ip_whitelist.length ? m.ip_whitelist.join(', ') : 'any address'} (set by the merchant in its cabinet, or below)</dd>
          <dt>Deal limits</dt>
          <dd>
            min <Money minor={m.deal_min_amount} currency={LIMITS} />, max <Money minor={m.deal_max_amount} currency={LIMITS} />, daily{' '}
            <Money minor={m.daily_deal_amount_limit} currency={LIMITS} />
          </dd>
          <dt>Deals</dt>
          <dd>
            <Link to={`/deals?merchant_id=${m.id}`}>Search this merchant’s deals</Link>
          </dd>
        </dl>
      </section>
      <section aria-labelledby="switch-h">
        <h2 id="switch-h">Kill-switch</h2>
        <p>
          {m.kill_switch ? (
            <>
              ON: every API call of the merchant is refused. <Text value={m.kill_switch_reason} />
            </>
          ) : (
            'Off: the merchant’s API calls are served.'
          )}
        </p>
        <Action
          op="adminToggleKillSwitch"
          label={m.kill_switch ? 'Turn the kill-switch off' : 'Turn the kill-switch on'}
          className={m.kill_switch ? '' : 'danger'}
          confirm={{
            title: m.kill_switch ? 'Turn the kill-switch off?' : 'Turn the kill-switch on?',
            text: m.kill_switch ? 'The merchant’s API calls are served again.' : 'Every API call of this merchant is refused until it is turned off.',
            label: m.kill_switch ? 'Turn off' : 'Turn on',
          }}
          run={() => unwrap(api.POST('/api/v1/p2p/admin/merchants/{merchant_id}/kill-switch', { params: { path: { merchant_id: id } } }))}
        />
      </section>
      <section aria-labelledby="settings-h">
        <h2 id="settings-h">Limits and settings</h2>
        {can('adminUpdateMerchant') ? <SettingsForm m={m} /> : <SettingsView m={m} />}
      </section>
      <OwnerInvitation merchantId={id} />
      <section aria-labelledby="keys-h">
        <h2 id="keys-h">API keys</h2>
        <Action
          op="issueApiKeys"
          label="Rotate keys"
          confirm={{
            title: 'Issue a new key pair?',
            text: 'The merchant’s current pair stays valid for the grace period, then stops working. The new secret is shown once.',
            label: 'Rotate',
          }}
          run={() => unwrap(api.POST('/api/v1/p2p/merchant/api-keys', { body: { merchant_id: id } }))}
          onDone={setKeys}
        />
        {keys && (
          <div className="secret" role="status">
            <p>New pair (the secret is shown only now):</p>
            <pre>{JSON.stringify(keys, null, 2)}</pre>
          </div>
        )}
      </section>
    </>
  );
}

/** Invite an owner to the merchant's cabinet: its first, or a new one when the owners lost their access. */
function OwnerInvitation({ merchantId }: { merchantId: string }) {
  const can = useCan();
  const [email, setEmail] = useState('');
  const invite = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/p2p/admin/merchants/{merchant_id}/owner-invitations', {
          params: { path: { merchant_id: merchantId } },
          body: { email: email.trim() },
        }),
      ),
  });
  if (!can('adminInviteMerchantOwner')) return null;
  return (
    <section aria-labelledby="owner-h">
      <h2 id="owner-h">Cabinet owner</h2>
      <form
        aria-label="Invite an owner"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          invite.mutate();
        }}
      >
        <Field label="Owner's email" hint="The owner signs in at /cabinet and manages the merchant's team.">
          <input type="email" autoComplete="off" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Submit label="Invite owner" mutation={invite} done="Invited" />
      </form>
      {invite.data && <InviteLink email={invite.data.invitation.email} expiresAt={invite.data.invitation.expires_at} url={invite.data.invite_url} />}
    </section>
  );
}

type OperatorMerchant = Schemas['OperatorMerchant']['merchant'];

function SettingsView({ m }: { m: OperatorMerchant }) {
  return (
    <dl>
      <dt>Auto-withdrawal</dt>
      <dd>
        {m.auto_withdrawal_mode}, limit {money(m.auto_withdrawal_limit_usdt_cents)} USDT (effective {money(m.auto_withdrawal_effective_limit_usdt_cents)})
      </dd>
      <dt>Rate limit</dt>
      <dd>{m.rate_limit_per_minute ?? 'default'} per minute</dd>
      <dt>Fees</dt>
      <dd>
        PayIn {m.payin_fee_bps} bps, PayOut {m.payout_fee_bps} bps
      </dd>
      <dt>Webhook retries</dt>
      <dd>{m.webhook_max_retries}</dd>
      <dt>Signature binding</dt>
      <dd>{m.signature_binding}</dd>
    </dl>
  );
}

/** The settings form once the currency exponents are known: amounts are typed in major units. */
function SettingsForm({ m }: { m: OperatorMerchant }) {
  const limits = useExponent(LIMITS);
  const usdt = useExponent('USDT');
  if (limits === undefined || usdt === undefined) return <Loading what="the currencies" />;
  return <Settings m={m} exponents={{ limits, usdt }} />;
}

/**
 * The operator's merchant settings (PATCH /admin/merchants/{id}): only the fields that changed are
 * sent. Amounts travel as their digits (int64(), never a JS number); the IP whitelist and deal
 * limits are checked by the API with the cabinet's rules, and its message is shown as it is.
 */
function Settings({ m, exponents }: { m: OperatorMerchant; exponents: { limits: number; usdt: number } }) {
  const queryClient = useQueryClient();
  const major = (minor: string | undefined, exponent: number) => (minor ? formatMinor(minor, exponent).replace(/ /g, '') : '');
  const initial = {
    auto_withdrawal_mode: m.auto_withdrawal_mode,
    auto_withdrawal_limit_usdt_cents: major(m.auto_withdrawal_limit_usdt_cents, exponents.usdt),
    rate_limit_per_minute: m.rate_limit_per_minute === null ? '' : String(m.rate_limit_per_minute),
    payin_fee_bps: String(m.payin_fee_bps),
    payout_fee_bps: String(m.payout_fee_bps),
    webhook_max_retries: String(m.webhook_max_retries),
    signature_binding: m.signature_binding,
    ip_whitelist: m.ip_whitelist.join('\n'),
    deal_min_amount: major(m.deal_min_amount, exponents.limits),
    deal_max_amount: major(m.deal_max_amount, exponents.limits),
    daily_deal_amount_limit: major(m.daily_deal_amount_limit, exponents.limits),
  };
  const [form, setForm] = useState(initial);
  const save = useMutation({
    mutationFn: () => {
      const changed = (key: keyof typeof form) => form[key] !== initial[key];
      const small = (field: string, value: string) => {
        const trimmed = value.trim();
        if (!/^\d+$/.test(trimmed)) throw new ApiError(400, `${field} must be a whole number`);
        return Number(trimmed);
      };
      const limit = (value: string, what: string) => (value.trim() === '' ? '0' : parseMajor(value, exponents.limits, what));
      return unwrap(
        api.PATCH('/api/v1/p2p/admin/merchants/{merchant_id}', {
          params: { path: { merchant_id: m.id } },
          body: {
            ...(changed('auto_withdrawal_mode') ? { auto_withdrawal_mode: form.auto_withdrawal_mode } : {}),
            ...(changed('auto_withdrawal_limit_usdt_cents')
              ? { auto_withdrawal_limit_usdt_cents: int64(parseMajor(form.auto_withdrawal_limit_usdt_cents, exponents.usdt, 'the auto-withdrawal limit')) }
              : {}),
            ...(changed('rate_limit_per_minute')
              ? { rate_limit_per_minute: form.rate_limit_per_minute === '' ? null : small('rate_limit_per_minute', form.rate_limit_per_minute) }
              : {}),
            ...(changed('payin_fee_bps') ? { payin_fee_bps: small('payin_fee_bps', form.payin_fee_bps) } : {}),
            ...(changed('payout_fee_bps') ? { payout_fee_bps: small('payout_fee_bps', form.payout_fee_bps) } : {}),
            ...(changed('webhook_max_retries') ? { webhook_max_retries: small('webhook_max_retries', form.webhook_max_retries) } : {}),
            ...(changed('signature_binding') ? { signature_binding: form.signature_binding } : {}),
            // The API takes the whitelist as a JSON array in a string (the cabinet's format); [] = any address.
            ...(changed('ip_whitelist') ? { ip_whitelist: JSON.stringify(form.ip_whitelist.split(/[\s,]+/).filter(Boolean)) } : {}),
            // Limits as digit strings (exact); empty removes the limit (0).
            ...(changed('deal_min_amount') ? { deal_min_amount: limit(form.deal_min_amount, 'the deal minimum') } : {}),
            ...(changed('deal_max_amount') ? { deal_max_amount: limit(form.deal_max_amount, 'the deal maximum') } : {}),
            ...(changed('daily_deal_amount_limit') ? { daily_deal_amount_limit: limit(form.daily_deal_amount_limit, 'the daily limit') } : {}),
          },
        }),
      );
    },
    onSuccess: () => queryClient.invalidateQueries(),
  });
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  return (
    <form
      className="grid"
      aria-label="Merchant settings"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <Field label="Auto-withdrawal mode">
        <select value={form.auto_withdrawal_mode} onChange={set('auto_withdrawal_mode')}>
          <option value="AUTO_UP_TO_LIMIT">AUTO_UP_TO_LIMIT</option>
          <option value="MANUAL_ONLY">MANUAL_ONLY</option>
        </select>
      </Field>
      <MoneyInput
        label="Auto-withdrawal limit"
        currency="USDT"
        value={form.auto_withdrawal_limit_usdt_cents}
        onChange={(text) => setForm({ ...form, auto_withdrawal_limit_usdt_cents: text })}
        hint="At most the four-eyes amount: larger withdrawals always wait for two approvals."
      />
      <Field label="Rate limit per minute" hint="Empty: the gateway's default.">
        <input inputMode="numeric" value={form.rate_limit_per_minute} onChange={set('rate_limit_per_minute')} />
      </Field>
      <Field label="PayIn fee (bps)">
        <input inputMode="numeric" value={form.payin_fee_bps} onChange={set('payin_fee_bps')} />
      </Field>
      <Field label="PayOut fee (bps)">
        <input inputMode="numeric" value={form.payout_fee_bps} onChange={set('payout_fee_bps')} />
      </Field>
      <Field label="Webhook retries">
        <input inputMode="numeric" value={form.webhook_max_retries} onChange={set('webhook_max_retries')} />
      </Field>
      <Field label="Signature binding" hint="required: every HMAC request must carry the request-bound v2 signature.">
        <select value={form.signature_binding} onChange={set('signature_binding')}>
          <option value="optional">optional</option>
          <option value="required">required</option>
        </select>
      </Field>
      <Field label="IP whitelist" hint="One address per line (IPv4 or IPv6). Empty: any address. The merchant's calls from other addresses are refused.">
        <textarea rows={3} value={form.ip_whitelist} onChange={set('ip_whitelist')} />
      </Field>
      <MoneyInput
        label="Deal minimum"
        currency={LIMITS}
        value={form.deal_min_amount}
        onChange={(text) => setForm({ ...form, deal_min_amount: text })}
        hint="Empty: no minimum."
      />
      <MoneyInput
        label="Deal maximum"
        currency={LIMITS}
        value={form.deal_max_amount}
        onChange={(text) => setForm({ ...form, deal_max_amount: text })}
        hint="Empty: no maximum."
      />
      <MoneyInput
        label="Daily deal amount limit"
        currency={LIMITS}
        value={form.daily_deal_amount_limit}
        onChange={(text) => setForm({ ...form, daily_deal_amount_limit: text })}
        hint="Empty: no daily limit."
      />
      <div>
        <Submit label="Save settings" mutation={save} done="Saved" />
      </div>
    </form>
  );
}
