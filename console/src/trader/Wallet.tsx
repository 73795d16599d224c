/**
 * The trader's Wallet: its USDT (available, and what is frozen: escrow, security deposit,
 * withdrawals), whether its money lets it get deals and why not, its TRC-20 deposit address with
 * a QR code, a withdrawal (an operator approves it), each deal's money and the withdrawals.
 * Amounts come from the API in minor units; USDT's are cents, a fiat currency's its ISO 4217
 * exponent (Intl knows it), so the page needs no catalogue the trader's door does not serve.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '../api';
import { parseMajor } from '../amounts';
import { Confirm } from '../dialog';
import { DataTable } from '../list';
import { QrCode } from '../qr';
import { ErrorText, Field, Loading, when } from '../ui';
import { Text } from '../text';
import { dealStatusWords, moneyOf } from './words';

const amount = moneyOf;
const usdt = (minor: string) => amount(minor, 'USDT');

const POOL_REASONS: Record<string, string> = {
  TRADER_NOT_ACTIVE: 'your account is not active yet',
  SECURITY_DEPOSIT_NOT_HELD: 'your security deposit is not held in full: deposit USDT to cover it (or, once released, ask an operator to hold it again)',
  BELOW_MIN_WORKING_BALANCE: 'your available balance is below your minimum working balance: deposit USDT',
};

const useWallet = () => useQuery({ queryKey: ['trader-wallet'], queryFn: () => unwrap(api.GET('/api/v1/p2p/trader/wallet')) });

export function TraderWallet() {
  return (
    <>
      <h1>Wallet</h1>
      <Balances />
      <DepositAddress />
      <Withdraw />
      <Earnings />
      <Withdrawals />
    </>
  );
}

function Balances() {
  const wallet = useWallet();
  if (wallet.isPending) return <Loading what="your balances" />;
  if (wallet.error) return <ErrorText error={wallet.error} />;
  const w = wallet.data.wallet;
  return (
    <section className="card" aria-labelledby="balances">
      <h2 id="balances">Your USDT</h2>
      <p data-testid="available">Available: {usdt(w.available)}</p>
      <ul>
        <li data-testid="escrow">In escrow for live PayIns: {usdt(w.escrow)}</li>
        <li data-testid="security-deposit">
          Security deposit: {usdt(w.security_deposit.held)} held of {usdt(w.security_deposit.required)} asked
          {w.security_deposit.released_at && <> (released {when(w.security_deposit.released_at)})</>}
        </li>
        <li>Withdrawals in progress: {usdt(w.withdrawals_held)}</li>
        <li data-testid="min-working-balance">Minimum working balance: {usdt(w.min_working_balance)}</li>
      </ul>
      {w.in_pool ? (
        <p data-testid="pool" data-in-pool="true">
          Your money lets you get deals.
        </p>
      ) : (
        <div role="status" data-testid="pool" data-in-pool="false">
          <p>You get no new deals:</p>
          <ul>
            {w.out_of_pool_reasons.map((r) => (
              <li key={r}>{POOL_REASONS[r] ?? r}</li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

function DepositAddress() {
  const address = useQuery({ queryKey: ['trader-deposit-address'], queryFn: () => unwrap(api.GET('/api/v1/p2p/trader/wallet/deposit-address')) });
  return (
    <section aria-labelledby="deposit">
      <h2 id="deposit">Deposit USDT (TRC-20)</h2>
      {address.isPending ? (
        <Loading what="your deposit address" />
      ) : address.error ? (
        <ErrorText error={address.error} />
      ) : (
        <div className="deposit">
          <QrCode text={address.data.address} label={`QR code of your deposit address ${address.data.address}`} />
          <p>
            Send only USDT on TRON (TRC-20) to
            <br />
            <code className="address" data-testid="deposit-address">
              {address.data.address}
            </code>
            <br />
            <small>It is yours for good. A deposit is credited once final on chain; a security deposit still short is held from it first.</small>
          </p>
        </div>
      )}
    </section>
  );
}

function Withdraw() {
  const queryClient = useQueryClient();
  const [address, setAddress] = useState('');
  const [major, setMajor] = useState('');
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<unknown>(null);
  let minor: string | undefined;
  let amountProblem: string | undefined;
  try {
    minor = major.trim() ? parseMajor(major, 2) : undefined;
  } catch (e) {
    amountProblem = e instanceof Error ? e.message : String(e);
  }
  const fee = useQuery({
    queryKey: ['trader-withdraw-fee', minor],
    queryFn: () => unwrap(api.GET('/api/v1/p2p/trader/withdrawals/fee', { params: { query: { amount: minor! } } })),
    enabled: !!minor,
  });
  const withdraw = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/p2p/trader/withdrawals', { body: { address: address.trim(), amount: BigInt(minor!) as unknown as number } })),
    onSuccess: async () => {
      setMajor('');
      await queryClient.invalidateQueries();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (!fee.data) return setError(new ApiError(0, 'the fee is not known yet: enter an amount the fee can be taken from'));
    setAsking(true);
  };
  return (
    <section aria-labelledby="withdraw">
      <h2 id="withdraw">Withdraw USDT</h2>
      <form onSubmit={submit} className="stack">
        <Field label="TRON address (TRC-20)">
          <input value={address} onChange={(e) => setAddress(e.target.value)} required autoComplete="off" spellCheck={false} />
        </Field>
        <Field label="Amount in USDT, fee included" hint={amountProblem}>
          <input value={major} onChange={(e) => setMajor(e.target.value)} required inputMode="decimal" autoComplete="off" />
        </Field>
        <p aria-live="polite" data-testid="fee-quote">
          {fee.data ? (
            <>
              Fee {usdt(fee.data.fee_usdt_cents)}; {usdt(fee.data.net_usdt_cents)} arrives at the address.
            </>
          ) : fee.error ? (
            <ErrorText error={fee.error} />
          ) : null}
        </p>
        <button type="submit" className="primary" disabled={withdraw.isPending}>
          {withdraw.isPending ? 'Withdrawing…' : 'Withdraw…'}
        </button>
        {withdraw.data && (
          <p role="status" className="done" data-testid="withdrawal-made">
            Withdrawal {withdraw.data.withdrawal_id.slice(0, 8)} made: {STATUS_WORDS[withdraw.data.status] ?? withdraw.data.status.toLowerCase()} — an operator
            approves it before it is sent.
          </p>
        )}
        <ErrorText error={error ?? withdraw.error} />
      </form>
      {asking && fee.data && (
        <Confirm
          title="Withdraw USDT"
          confirmLabel={`Withdraw ${usdt(fee.data.amount)}`}
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            withdraw.mutate();
          }}
        >
          <span data-testid="confirm-text">
            {usdt(fee.data.amount)} leaves your available balance now (held until sent); {usdt(fee.data.net_usdt_cents)} arrives at{' '}
            <code className="address">
              <Text value={address.trim()} />
            </code>{' '}
            after the fee of {usdt(fee.data.fee_usdt_cents)}, once an operator approves it (two operators for a large amount). A transfer on chain cannot be
            called back. Below your minimum working balance you get no new deals.
          </span>
        </Confirm>
      )}
    </section>
  );
}

/** Each deal's money: what it did to your USDT and to your fiat (the gateway pays no reward per deal). */
function Earnings() {
  const list = useQuery({
    queryKey: ['trader-earnings'],
    queryFn: () => unwrap(api.GET('/api/v1/p2p/trader/wallet/earnings', { params: { query: { page_size: 50 } } })),
  });
  return (
    <section aria-labelledby="earnings">
      <h2 id="earnings">Your deals’ money</h2>
      <p>
        <small>
          The gateway pays no reward per deal: a PayIn takes its USDT escrow while you receive the fiat from the payer; a PayOut pays you USDT for the fiat you
          send. You earn on the rate you work at.
        </small>
      </p>
      {list.isPending ? (
        <Loading what="your deals’ money" />
      ) : list.error ? (
        <ErrorText error={list.error} />
      ) : (
        <DataTable
          caption="Deals, newest first"
          columns={['Deal', 'Status', 'Fiat', 'USDT']}
          rows={list.data.data}
          rowKey={(d) => d.deal_id}
          empty="No deals yet."
          row={(d) => (
            <tr data-testid={`earning-${d.deal_id}`}>
              <td>
                {d.deal_type === 'PAYIN' ? 'PayIn' : 'PayOut'} <span className="mono">{d.deal_id.slice(0, 8)}</span>
                <br />
                <small>{when(d.created_at)}</small>
              </td>
              <td data-status={d.status}>{dealStatusWords(d.status)}</td>
              <td className="num">
                {d.fiat_change.startsWith('-') ? '−' : '+'}
                {amount(d.fiat_change.replace('-', ''), d.currency)}
              </td>
              <td className="num" data-testid="usdt-change">
                {d.usdt_change.startsWith('-') ? '−' : '+'}
                {usdt(d.usdt_change.replace('-', ''))}
                {d.usdt_frozen !== '0' && <small> (in escrow)</small>}
              </td>
            </tr>
          )}
        />
      )}
    </section>
  );
}

const STATUS_WORDS: Record<string, string> = {
  PENDING_MANUAL: 'waiting for an operator',
  APPROVED: 'approved, sending',
  PENDING: 'sending',
  COMPLETED: 'sent',
  CANCELLED: 'cancelled, returned',
};

function Withdrawals() {
  const list = useQuery({
    queryKey: ['trader-withdrawals'],
    queryFn: () => unwrap(api.GET('/api/v1/p2p/trader/withdrawals', { params: { query: { page_size: 50 } } })),
  });
  return (
    <section aria-labelledby="withdrawals">
      <h2 id="withdrawals">Withdrawals</h2>
      {list.isPending ? (
        <Loading what="your withdrawals" />
      ) : list.error ? (
        <ErrorText error={list.error} />
      ) : (
        <DataTable
          caption="Withdrawals, newest first"
          columns={['Requested', 'Amount', 'To', 'Status']}
          rows={list.data.data}
          rowKey={(w) => w.withdrawal_id}
          empty="No withdrawals yet."
          row={(w) => (
            <tr data-testid={`withdrawal-${w.withdrawal_id}`} data-status={w.status}>
              <td>{when(w.created_at)}</td>
              <td className="num">{usdt(w.amount)}</td>
              <td>
                <code className="address">{w.address}</code>
              </td>
              <td>
                {STATUS_WORDS[w.status] ?? w.status.toLowerCase()}
                {w.cancel_reason && (
                  <>
                    {' '}
                    — <Text value={w.cancel_reason} />
                  </>
                )}
              </td>
            </tr>
          )}
        />
      )}
    </section>
  );
}
