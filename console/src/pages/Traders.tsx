import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, int64, unwrap, type Schemas } from '../api';
import { InviteLink } from '../invite-link';
import { DataTable, PagedList, usePagedList } from '../list';
import { IdLink } from '../names';
import { useCan } from '../session';
import { Action, Field, money, Submit, when } from '../ui';
import { MoneyInput, useFormatMoney, useToMinor } from '../money';
import { plainText, Text } from '../text';
import { REQUISITE_TRANSITIONS } from '../../../domain/state/requisites';

/** A requisite's status as the ops lead reads it (the code stays in data-status). */
/** Whether deals can reach the trader now, as its app last said (the matcher also wants a fresh heartbeat). */
const PRESENCE_WORDS: Record<string, string> = {
  managed: 'managed by operators',
  online: 'online in the app',
  offline: 'offline',
  paused_silent: 'paused: its app fell silent',
};

const REQUISITE_STATUS_WORDS: Record<string, string> = {
  PENDING_APPROVAL: 'waiting for approval',
  ACTIVE: 'active',
  PAUSED: 'paused',
  REJECTED: 'rejected',
  ARCHIVED: 'archived',
};

export function Traders() {
  const can = useCan();
  const traders = usePagedList(['traders'], (page_token) => unwrap(api.GET('/api/v1/p2p/admin/traders', { params: { query: { page_size: 25, page_token } } })));
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [made, setMade] = useState<Schemas['CreateTraderResult'] | undefined>();
  return (
    <>
      <h1>Traders and requisites</h1>
      <PendingRequisites />
      <div className="filters">
        <Field label="New trader's name">
          <input value={name} maxLength={200} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field
          label="Trader's email"
          hint="Their own account at the trader app: they are invited and work once you approve them. Empty: you act for the trader."
        >
          <input type="email" value={email} maxLength={254} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Action
          op="adminCreateTrader"
          label="Create trader"
          run={() => unwrap(api.POST('/api/v1/p2p/admin/traders', { body: { name, ...(email.trim() ? { email: email.trim() } : {}) } }))}
          onDone={(result) => {
            setName('');
            setEmail('');
            setMade(result);
          }}
        />
      </div>
      {made?.account_invitation && (
        <InviteLink
          email={made.account_invitation.invitation.email}
          expiresAt={made.account_invitation.invitation.expires_at}
          url={made.account_invitation.invite_url}
        />
      )}
      <PagedList paged={traders} what="traders">
        {(list) => (
          <>
            {list.map((t) => (
              <section key={t.trader_id} id={`trader-${t.trader_id}`} className="card wide" aria-label={`Trader ${plainText(t.name)}`}>
                <h2>
                  <Text value={t.name} title={t.trader_id} />{' '}
                  <span className="badge" data-status={t.status}>
                    {t.status === 'PENDING_APPROVAL' ? 'waiting for approval' : t.status.toLowerCase()}
                  </span>{' '}
                  <span className="badge" data-presence={t.presence} title={t.heartbeat_at ? `last heartbeat ${when(t.heartbeat_at)}` : undefined}>
                    {PRESENCE_WORDS[t.presence]}
                  </span>
                </h2>
                {t.status === 'PENDING_APPROVAL' && (
                  <Action
                    op="adminApproveTrader"
                    label="Approve…"
                    className="primary"
                    confirm={{
                      title: `Approve ${plainText(t.name)}`,
                      text: (
                        <p>
                          <Text value={t.name} /> starts receiving deals whenever it is online and its approved requisites and balance allow. Approval needs an
                          account of the trader that has set up its authenticator.
                        </p>
                      ),
                      label: 'Approve the trader',
                    }}
                    run={() => unwrap(api.POST('/api/v1/p2p/admin/traders/{trader_id}/approve', { params: { path: { trader_id: t.trader_id } } }))}
                  />
                )}
                <p>
                  <IdLink kind="trader" id={t.trader_id} full /> · balance {money(t.balance_usdt)} USDT, frozen {money(t.frozen_usdt)} · since{' '}
                  {when(t.created_at)}
                </p>
                <DataTable
                  caption={`Requisites of ${plainText(t.name)}`}
                  columns={['Method', 'Type', 'Number', 'Holder / bank', 'Limits', 'Status']}
                  rows={t.requisites}
                  rowKey={(r) => r.requisite_id}
                  row={(r) => (
                    <tr>
                      <td>{r.payment_method}</td>
                      <td>{r.requisite_type}</td>
                      <td className="mono">{r.card_number || r.phone_number || r.iban}</td>
                      <td>
                        <Text value={r.holder_name} /> / <Text value={r.bank_name} />
                      </td>
                      <td className="num">
                        {money(r.min_amount)} – {money(r.max_amount)}
                        {r.daily_limit && `, daily ${money(r.daily_limit)}`}
                      </td>
                      <td data-status={r.status}>{REQUISITE_STATUS_WORDS[r.status] ?? r.status}</td>
                    </tr>
                  )}
                  empty="No requisites."
                />
                {(can('adminCreateRequisite') || can('adminCreateTraderDeposit') || can('adminInviteTrader') || can('adminGetTraderWallet')) && (
                  <div className="trader-actions">
                    {can('adminInviteTrader') && <InviteAccount traderId={t.trader_id} name={t.name} />}
                    {can('adminCreateRequisite') && <AddRequisite traderId={t.trader_id} name={t.name} />}
                    {can('adminCreateTraderDeposit') && <TopUp traderId={t.trader_id} name={t.name} />}
                    {can('adminGetTraderWallet') && <TraderMoney traderId={t.trader_id} name={t.name} />}
                  </div>
                )}
              </section>
            ))}
            {list.length === 0 && <p>No traders.</p>}
          </>
        )}
      </PagedList>
    </>
  );
}

/** Invites an account for a trader (its first, or a new one): the link is shown once. */
function InviteAccount({ traderId, name }: { traderId: string; name: string }) {
  const [email, setEmail] = useState('');
  const invite = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/v1/p2p/admin/traders/{trader_id}/invitations', { params: { path: { trader_id: traderId } }, body: { email: email.trim() } })),
    onSuccess: () => setEmail(''),
  });
  return (
    <details>
      <summary>
        Invite an account for <Text value={name} />
      </summary>
      <form
        className="grid"
        aria-label={`Invite an account for ${plainText(name)}`}
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          invite.mutate();
        }}
      >
        <Field label="Email" hint="The trader signs in at the trader app with it, after setting a password and an authenticator.">
          <input type="email" required maxLength={254} value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <div>
          <Submit label="Invite" mutation={invite} done="Invited" />
        </div>
      </form>
      {invite.data && <InviteLink email={invite.data.invitation.email} expiresAt={invite.data.invitation.expires_at} url={invite.data.invite_url} />}
    </details>
  );
}

const REQUISITE_TYPES = ['BANK_CARD', 'SBP', 'BANK_TRANSFER', 'E_WALLET', 'SIM'] as const;
type RequisiteType = (typeof REQUISITE_TYPES)[number];

/** Adds a requisite (card, phone or IBAN) to a trader; amounts in minor units, sent as their digits. */
function AddRequisite({ traderId, name }: { traderId: string; name: string }) {
  const queryClient = useQueryClient();
  const empty = {
    payment_method: '',
    requisite_type: 'BANK_CARD' as RequisiteType,
    number: '',
    holder_name: '',
    bank_name: '',
    min_amount: '',
    max_amount: '',
    daily_limit: '',
  };
  const [form, setForm] = useState(empty);
  const add = useMutation({
    mutationFn: () => {
      const numberField =
        form.requisite_type === 'SBP' || form.requisite_type === 'SIM' ? 'phone_number' : form.requisite_type === 'BANK_TRANSFER' ? 'iban' : 'card_number';
      return unwrap(
        api.POST('/api/v1/p2p/admin/traders/{trader_id}/requisites', {
          params: { path: { trader_id: traderId } },
          body: {
            payment_method: form.payment_method.trim(),
            requisite_type: form.requisite_type,
            [numberField]: form.number.trim(),
            holder_name: form.holder_name,
            bank_name: form.bank_name,
            min_amount: int64(form.min_amount),
            max_amount: int64(form.max_amount),
            ...(form.daily_limit.trim() ? { daily_limit: int64(form.daily_limit) } : {}),
          },
        }),
      );
    },
    onSuccess: async () => {
      setForm(empty);
      await queryClient.invalidateQueries();
    },
  });
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  return (
    <details>
      <summary>
        Add a requisite to <Text value={name} />
      </summary>
      <form
        className="grid"
        aria-label={`Add a requisite to ${plainText(name)}`}
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          add.mutate();
        }}
      >
        <Field label="Payment method" hint="Its slug, e.g. card-rub, sbp-rub, iban-try.">
          <input required value={form.payment_method} onChange={set('payment_method')} />
        </Field>
        <Field label="Type">
          <select value={form.requisite_type} onChange={set('requisite_type')}>
            {REQUISITE_TYPES.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Card, phone or IBAN" hint="A card number for BANK_CARD and E_WALLET, a phone for SBP and SIM, an IBAN for BANK_TRANSFER.">
          <input required value={form.number} onChange={set('number')} />
        </Field>
        <Field label="Holder name">
          <input required maxLength={200} value={form.holder_name} onChange={set('holder_name')} />
        </Field>
        <Field label="Bank name">
          <input required maxLength={200} value={form.bank_name} onChange={set('bank_name')} />
        </Field>
        <Field label="Minimum amount (minor units)">
          <input required inputMode="numeric" value={form.min_amount} onChange={set('min_amount')} />
        </Field>
        <Field label="Maximum amount (minor units)">
          <input required inputMode="numeric" value={form.max_amount} onChange={set('max_amount')} />
        </Field>
        <Field label="Daily limit (minor units)" hint="Empty: none.">
          <input inputMode="numeric" value={form.daily_limit} onChange={set('daily_limit')} />
        </Field>
        <div>
          <Submit label="Add requisite" mutation={add} done="Added" />
        </div>
      </form>
    </details>
  );
}

/** Tops up a trader's USDT liquidity from a chain transaction (idempotent by tx_hash). */
function TopUp({ traderId, name }: { traderId: string; name: string }) {
  const [amount, setAmount] = useState('');
  const format = useFormatMoney();
  const toMinor = useToMinor('USDT');
  let amountText = '?';
  try {
    amountText = format(toMinor(amount), 'USDT');
  } catch {
    // Not an amount yet: the field says why; the action refuses with the same message.
  }
  const [txHash, setTxHash] = useState('');
  return (
    <details>
      <summary>
        Top up <Text value={name} />
      </summary>
      <div className="grid">
        <MoneyInput label="Amount" currency="USDT" value={amount} onChange={setAmount} />
        <Field label="Transaction id" hint="The TRON transaction (64 hex characters); the same id credits once.">
          <input value={txHash} onChange={(e) => setTxHash(e.target.value.trim())} />
        </Field>
        <div>
          <Action
            op="adminCreateTraderDeposit"
            label="Top up…"
            className="primary"
            confirm={{
              title: `Top up ${plainText(name)}?`,
              text: `${amountText} is credited to the trader's available balance.`,
              label: 'Top up',
            }}
            run={() =>
              unwrap(
                api.POST('/api/v1/p2p/admin/traders/{trader_id}/deposits', {
                  params: { path: { trader_id: traderId } },
                  body: { amount: int64(toMinor(amount, 'the amount')), tx_hash: txHash },
                }),
              )
            }
            onDone={() => {
              setAmount('');
              setTxHash('');
            }}
          />
        </div>
      </div>
    </details>
  );
}

/**
 * Requisites traders added or changed, waiting for approval: Approve (matched from then on) or
 * Reject with a reason the trader reads; each dialog says what the move does, from the state table.
 */
function PendingRequisites() {
  const pending = useQuery({ queryKey: ['pending-requisites'], queryFn: () => unwrap(api.GET('/api/v1/p2p/admin/requisites/pending')) });
  const format = useFormatMoney();
  const rows = pending.data?.data ?? [];
  if (rows.length === 0) return null;
  return (
    <section className="card wide" aria-label="Requisites waiting for approval">
      <h2>Requisites waiting for approval</h2>
      <DataTable
        caption="Requisites waiting for approval"
        columns={['Trader', 'Method', 'Number', 'Holder / bank', 'Per deal', 'Actions']}
        rows={rows}
        rowKey={(r) => r.requisite_id}
        row={(r) => {
          const number = r.card_number || r.phone_number || r.iban;
          return (
            <tr data-testid="pending-requisite">
              <td>
                <Text value={r.trader_name} title={r.trader_id} />
              </td>
              <td>{r.payment_method}</td>
              <td className="mono">{number}</td>
              <td>
                <Text value={r.holder_name} /> / <Text value={r.bank_name} />
              </td>
              <td className="num">
                {format(r.limits.min_amount, r.currency)} – {format(r.limits.max_amount, r.currency)}
              </td>
              <td>
                <Action
                  op="adminApproveRequisite"
                  label="Approve…"
                  className="primary"
                  confirm={{
                    title: `Approve ${number}`,
                    text: <p>{REQUISITE_TRANSITIONS.approve.effect}</p>,
                    label: 'Approve the requisite',
                  }}
                  run={() => unwrap(api.POST('/api/v1/p2p/admin/requisites/{requisite_id}/approve', { params: { path: { requisite_id: r.requisite_id } } }))}
                />
                <RejectRequisite requisiteId={r.requisite_id} number={number} />
              </td>
            </tr>
          );
        }}
        empty="Nothing waits."
      />
    </section>
  );
}

function RejectRequisite({ requisiteId, number }: { requisiteId: string; number: string }) {
  const [reason, setReason] = useState('');
  return (
    <details>
      <summary>Reject with a reason</summary>
      <Field label="Reason the trader reads">
        <input required maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />
      </Field>
      <Action
        op="adminRejectRequisite"
        label="Reject…"
        className="danger"
        disabled={reason.trim() === ''}
        confirm={{
          title: `Reject ${number}`,
          text: (
            <p>
              {REQUISITE_TRANSITIONS.reject.effect} Reason: <Text value={reason} />
            </p>
          ),
          label: 'Reject the requisite',
          tone: 'danger',
        }}
        run={() =>
          unwrap(
            api.POST('/api/v1/p2p/admin/requisites/{requisite_id}/reject', {
              params: { path: { requisite_id: requisiteId } },
              body: { reason: reason.trim() },
            }),
          )
        }
      />
    </details>
  );
}

const POOL_REASONS: Record<string, string> = {
  TRADER_NOT_ACTIVE: 'the trader is not active',
  SECURITY_DEPOSIT_NOT_HELD: 'its security deposit is not held in full (short, or released)',
  BELOW_MIN_WORKING_BALANCE: 'its available balance is below its minimum working balance',
};

/**
 * The trader's money rules: its security deposit (held frozen while it works; released when it
 * stops) and minimum working balance, and whether they let the matcher give it deals.
 */
function TraderMoney({ traderId, name }: { traderId: string; name: string }) {
  const [open, setOpen] = useState(false);
  const wallet = useQuery({
    queryKey: ['trader-wallet', traderId],
    enabled: open,
    queryFn: () => unwrap(api.GET('/api/v1/p2p/admin/traders/{trader_id}/wallet', { params: { path: { trader_id: traderId } } })),
  });
  const toMinor = useToMinor('USDT');
  const [deposit, setDeposit] = useState('');
  const [minimum, setMinimum] = useState('');
  const path = { params: { path: { trader_id: traderId } } };
  const w = wallet.data?.wallet;
  return (
    <details onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>
        Money rules of <Text value={name} />
      </summary>
      {w && (
        <section className="grid" aria-label={`Money rules of ${plainText(name)}`}>
          <p>
            Security deposit {money(w.security_deposit.held)} of {money(w.security_deposit.required)} USDT held
            {w.security_deposit.released_at && <> (released {when(w.security_deposit.released_at)})</>}; minimum working balance {money(w.min_working_balance)}{' '}
            USDT; available {money(w.available)} USDT.{' '}
            {w.in_pool ? 'Gets deals.' : `Gets no deals: ${w.out_of_pool_reasons.map((r) => POOL_REASONS[r] ?? r).join('; ')}.`}
          </p>
          <MoneyInput
            label="Security deposit"
            currency="USDT"
            value={deposit}
            onChange={setDeposit}
            hint="Empty: unchanged. Held at once, as far as available allows."
          />
          <MoneyInput label="Minimum working balance" currency="USDT" value={minimum} onChange={setMinimum} hint="Empty: unchanged." />
          <div>
            <Action
              op="adminSetTraderMoney"
              label="Save money rules"
              run={() =>
                unwrap(
                  api.PATCH('/api/v1/p2p/admin/traders/{trader_id}/wallet', {
                    ...path,
                    body: {
                      ...(deposit.trim() ? { security_deposit: int64(toMinor(deposit, 'the security deposit')) } : {}),
                      ...(minimum.trim() ? { min_working_balance: int64(toMinor(minimum, 'the minimum working balance')) } : {}),
                    },
                  }),
                )
              }
              onDone={() => {
                setDeposit('');
                setMinimum('');
              }}
            />{' '}
            {w.security_deposit.released_at ? (
              <Action
                op="adminHoldTraderSecurityDeposit"
                label="Hold the security deposit again"
                run={() => unwrap(api.POST('/api/v1/p2p/admin/traders/{trader_id}/security-deposit/hold', path))}
              />
            ) : (
              <Action
                op="adminReleaseTraderSecurityDeposit"
                label="Release the security deposit…"
                confirm={{
                  title: `Release the security deposit of ${plainText(name)}?`,
                  text: `${money(w.security_deposit.held)} USDT goes back to its available balance, and it gets no deals until the deposit is held again.`,
                  label: 'Release',
                }}
                run={() => unwrap(api.POST('/api/v1/p2p/admin/traders/{trader_id}/security-deposit/release', path))}
              />
            )}
          </div>
        </section>
      )}
    </details>
  );
}
