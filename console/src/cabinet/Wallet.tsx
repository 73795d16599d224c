/**
 * The cabinet's Wallet page: the TRC-20 deposit address with its QR code; withdrawals — the fee
 * quote, the address, the amount, a confirmation saying what moves — and their history with status.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '../api';
import { Confirm } from '../dialog';
import { DataTable } from '../list';
import { Money, MoneyInput, useFormatMoney, useToMinor } from '../money';
import { ErrorText, Field, Loading, when } from '../ui';
import { Text } from '../text';
import { useBalance } from './Home';
import { useMemberCan } from './can';
import { QrCode } from '../qr';

export function CabinetWallet() {
  const balance = useBalance();
  const wallet = balance.data?.wallets.find((w) => w.currency === 'USDT');
  return (
    <>
      <h1>Wallet</h1>
      {wallet && (
        <p data-testid="available">
          Available: <Money minor={wallet.available} currency="USDT" /> · held: <Money minor={wallet.frozen} currency="USDT" />
        </p>
      )}
      <ErrorText error={balance.error} />
      <DepositAddress />
      <Withdraw />
      <History />
    </>
  );
}

function DepositAddress() {
  const can = useMemberCan();
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const address = useQuery({
    queryKey: ['deposit-address'],
    queryFn: async () => {
      try {
        return await unwrap(api.GET('/api/v1/p2p/merchant/wallet/deposit-address'));
      } catch (error) {
        // 404: none generated yet — an answer, not a failure.
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
  });
  const rotate = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/p2p/merchant/wallet/deposit-address')),
    onSuccess: () => queryClient.invalidateQueries(),
  });
  const first = address.data === null;
  return (
    <section aria-labelledby="deposit">
      <h2 id="deposit">Deposit USDT (TRC-20)</h2>
      {address.isPending ? (
        <Loading what="the deposit address" />
      ) : address.error ? (
        <ErrorText error={address.error} />
      ) : address.data ? (
        <div className="deposit">
          <QrCode text={address.data.address} label={`QR code of the deposit address ${address.data.address}`} />
          <p>
            Send only USDT on TRON (TRC-20) to
            <br />
            <code className="address" data-testid="deposit-address">
              {address.data.address}
            </code>
            <br />
            <small>Current since {when(address.data.updated_at)}. Deposits are credited once final on chain.</small>
          </p>
        </div>
      ) : (
        <p>You have no deposit address yet.</p>
      )}
      {can('rotateDepositAddress') && !address.isPending && (
        <button type="button" onClick={() => setAsking(true)} disabled={rotate.isPending}>
          {first ? 'Get my deposit address…' : 'Get a new deposit address…'}
        </button>
      )}
      <ErrorText error={rotate.error} />
      {asking && (
        <Confirm
          title={first ? 'Get a deposit address' : 'Get a new deposit address'}
          confirmLabel={first ? 'Get the address' : 'Get a new address'}
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            rotate.mutate();
          }}
        >
          {first
            ? 'A TRC-20 address of your own is made; USDT sent to it is credited to your available balance. No money moves.'
            : 'A new TRC-20 address becomes current. The old one stays yours: late deposits to it are still credited. No money moves.'}
        </Confirm>
      )}
    </section>
  );
}

function Withdraw() {
  const can = useMemberCan();
  const queryClient = useQueryClient();
  const format = useFormatMoney();
  const toMinor = useToMinor('USDT');
  const [address, setAddress] = useState('');
  const [amount, setAmount] = useState('');
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<unknown>(null);
  let minor: string | undefined;
  try {
    minor = amount.trim() ? toMinor(amount) : undefined;
  } catch {
    minor = undefined;
  }
  const fee = useQuery({
    queryKey: ['withdraw-fee', minor],
    queryFn: () => unwrap(api.GET('/api/v1/p2p/merchant/wallet/withdraw-fee', { params: { query: { amount: minor! } } })),
    enabled: !!minor,
  });
  const withdraw = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/v1/p2p/merchant/wallet/withdraw', { body: { address: address.trim(), amount: BigInt(minor!) as unknown as number } })),
    onSuccess: async () => {
      setAmount('');
      await queryClient.invalidateQueries();
    },
  });
  if (!can('createWithdrawal')) return null;
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
        <MoneyInput label="Amount, fee included" currency="USDT" value={amount} onChange={setAmount} required />
        <p aria-live="polite" data-testid="fee-quote">
          {fee.data ? (
            <>
              Fee {format(fee.data.fee_usdt_cents, 'USDT')}; {format(fee.data.net_usdt_cents, 'USDT')} arrives at the address.
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
            Withdrawal {withdraw.data.withdrawal_id.slice(0, 8)}: {withdraw.data.status}
          </p>
        )}
        <ErrorText error={error ?? withdraw.error} />
      </form>
      {asking && fee.data && (
        <Confirm
          title="Withdraw USDT"
          confirmLabel={`Withdraw ${format(fee.data.amount, 'USDT')}`}
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            withdraw.mutate();
          }}
        >
          <span data-testid="confirm-text">
            {format(fee.data.amount, 'USDT')} leaves your available balance now (held until sent); {format(fee.data.net_usdt_cents, 'USDT')} arrives at{' '}
            <code className="address">
              <Text value={address.trim()} />
            </code>{' '}
            after the fee of {format(fee.data.fee_usdt_cents, 'USDT')}. Within your automatic limit it is sent at once; above it, an operator approves it first.
            A transfer on chain cannot be called back.
          </span>
        </Confirm>
      )}
    </section>
  );
}

const STATUS_WORDS: Record<string, string> = {
  PENDING: 'sending',
  PENDING_MANUAL: 'waiting for an operator',
  APPROVED: 'approved, sending',
  COMPLETED: 'sent',
  CANCELLED: 'cancelled, returned',
};

function History() {
  const list = useQuery({
    queryKey: ['withdrawals'],
    queryFn: () => unwrap(api.GET('/api/v1/p2p/merchant/wallet/withdrawals', { params: { query: { page_size: 50 } } })),
  });
  return (
    <section aria-labelledby="history">
      <h2 id="history">Withdrawals</h2>
      {list.isPending ? (
        <Loading what="the withdrawals" />
      ) : list.error ? (
        <ErrorText error={list.error} />
      ) : (
        <DataTable
          caption="Withdrawals, newest first"
          columns={['Requested', 'Amount', 'Fee', 'Arrives', 'To', 'Status']}
          rows={list.data.data}
          rowKey={(w) => w.withdrawal_id}
          empty="No withdrawals yet."
          row={(w) => (
            <tr data-testid={`withdrawal-${w.withdrawal_id}`} data-status={w.status}>
              <td>{when(w.created_at)}</td>
              <td>
                <Money minor={w.amount} currency="USDT" />
              </td>
              <td>
                <Money minor={w.fee_usdt_cents} currency="USDT" />
              </td>
              <td>
                <Money minor={w.net_usdt_cents} currency="USDT" />
              </td>
              <td>
                <code className="address">{w.address}</code>
              </td>
              <td>
                {w.status} <small>({STATUS_WORDS[w.status] ?? w.status.toLowerCase()})</small>
                {w.cancel_reason && (
                  <>
                    {' '}
                    — <Text value={w.cancel_reason} />
                  </>
                )}
                {w.tx_hash && (
                  <>
                    <br />
                    <small className="mono">tx {w.tx_hash.slice(0, 16)}…</small>
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
