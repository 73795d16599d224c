/**
 * The parts of a Wallet page the merchant cabinet and the trader app share: the words for a
 * withdrawal's status, the deposit address card with its QR code, the withdrawal form with its fee
 * quote and confirmation, and the withdrawals list. Each page passes what differs: its API calls,
 * how it writes USDT, its columns and its words.
 */
import { Fragment, useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import { ApiError, type Schemas } from './api';
import { Confirm } from './dialog';
import { DataTable } from './list';
import { QrCode } from './qr';
import { Text } from './text';
import { ErrorText, Field, Loading, when } from './ui';

type Withdrawal = Schemas['Withdrawal'];
type FeeQuote = Schemas['WithdrawFeeQuote'];

const WITHDRAWAL_STATUS_WORDS: Record<string, string> = {
  PENDING_MANUAL: 'waiting for an operator',
  APPROVED: 'approved, sending',
  PENDING: 'sending',
  COMPLETED: 'sent',
  CANCELLED: 'cancelled, returned',
};

/** A withdrawal's status as its owner reads it ("waiting for an operator"); an unknown one in lower case. */
export const withdrawalStatusWords = (status: string) => WITHDRAWAL_STATUS_WORDS[status] ?? status.toLowerCase();

/**
 * "Deposit USDT (TRC-20)": the address with its QR code and a note under it, or `none` while there
 * is no address; `children` follow (the cabinet's button for a new address).
 */
export function DepositAddressSection<A extends { address: string }>({
  address,
  whose,
  note,
  none,
  children,
}: {
  address: UseQueryResult<A | null>;
  /** "your" in the trader app, "the" in the cabinet: "QR code of your deposit address …". */
  whose: string;
  note: (address: A) => ReactNode;
  none?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <section aria-labelledby="deposit">
      <h2 id="deposit">Deposit USDT (TRC-20)</h2>
      {address.isPending ? (
        <Loading what={`${whose} deposit address`} />
      ) : address.error ? (
        <ErrorText error={address.error} />
      ) : address.data ? (
        <div className="deposit">
          <QrCode text={address.data.address} label={`QR code of ${whose} deposit address ${address.data.address}`} />
          <p>
            Send only USDT on TRON (TRC-20) to
            <br />
            <code className="address" data-testid="deposit-address">
              {address.data.address}
            </code>
            <br />
            <small>{note(address.data)}</small>
          </p>
        </div>
      ) : (
        none
      )}
      {children}
    </section>
  );
}

/**
 * "Withdraw USDT": the address, the amount (fee included), the fee quote as it is typed, and a
 * confirmation saying what moves before the withdrawal is made.
 */
export function WithdrawForm({
  feeKey,
  quote,
  create,
  usdt,
  toMinor,
  amountField,
  made,
  afterFee,
}: {
  /** The fee quote's query key. */
  feeKey: string;
  quote: (minor: string) => Promise<FeeQuote>;
  create: (body: { address: string; amount: bigint }) => Promise<Withdrawal>;
  /** USDT cents as text: "100.00 USDT". */
  usdt: (minor: string) => string;
  /** The typed amount in USDT cents; throws why it is not one. */
  toMinor: (text: string) => string;
  /** The amount's input: the text typed, its setter, and why it is not an amount (if it is not). */
  amountField: (value: string, onChange: (text: string) => void, problem: string | undefined) => ReactNode;
  /** What follows "Withdrawal 1a2b3c4d" once it is made. */
  made: (withdrawal: Withdrawal) => ReactNode;
  /** What the confirmation says after "after the fee of …": who approves it and when it is sent. */
  afterFee: ReactNode;
}) {
  const queryClient = useQueryClient();
  const [address, setAddress] = useState('');
  const [amount, setAmount] = useState('');
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState<unknown>(null);
  let minor: string | undefined;
  let amountProblem: string | undefined;
  try {
    minor = amount.trim() ? toMinor(amount) : undefined;
  } catch (e) {
    amountProblem = e instanceof Error ? e.message : String(e);
  }
  const fee = useQuery({ queryKey: [feeKey, minor], queryFn: () => quote(minor!), enabled: !!minor });
  const withdraw = useMutation({
    mutationFn: () => create({ address: address.trim(), amount: BigInt(minor!) }),
    onSuccess: async () => {
      setAmount('');
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
        {amountField(amount, setAmount, amountProblem)}
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
            Withdrawal {withdraw.data.withdrawal_id.slice(0, 8)}
            {made(withdraw.data)}
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
            after the fee of {usdt(fee.data.fee_usdt_cents)}
            {afterFee}
          </span>
        </Confirm>
      )}
    </section>
  );
}

/** An amount column of the withdrawals list: its name and its cell (a whole <td>). */
export type AmountColumn = { name: string; cell: (withdrawal: Withdrawal) => ReactNode };

/**
 * "Withdrawals", newest first: when, the amount columns the page asks for, the address, the
 * status (as `status` writes it), why it was cancelled and, with `txHash`, the transaction.
 */
export function WithdrawalsSection({
  list,
  headingId,
  whose,
  amounts,
  status,
  txHash,
}: {
  list: UseQueryResult<{ data: Withdrawal[] }>;
  headingId: string;
  /** "your" in the trader app, "the" in the cabinet: "Loading your withdrawals". */
  whose: string;
  amounts: AmountColumn[];
  status: (withdrawal: Withdrawal) => ReactNode;
  txHash?: boolean;
}) {
  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId}>Withdrawals</h2>
      {list.isPending ? (
        <Loading what={`${whose} withdrawals`} />
      ) : list.error ? (
        <ErrorText error={list.error} />
      ) : (
        <DataTable
          caption="Withdrawals, newest first"
          columns={['Requested', ...amounts.map((a) => a.name), 'To', 'Status']}
          rows={list.data.data}
          rowKey={(w) => w.withdrawal_id}
          empty="No withdrawals yet."
          row={(w) => (
            <tr data-testid={`withdrawal-${w.withdrawal_id}`} data-status={w.status}>
              <td>{when(w.created_at)}</td>
              {amounts.map((a) => (
                <Fragment key={a.name}>{a.cell(w)}</Fragment>
              ))}
              <td>
                <code className="address">{w.address}</code>
              </td>
              <td>
                {status(w)}
                {w.cancel_reason && (
                  <>
                    {' '}
                    — <Text value={w.cancel_reason} />
                  </>
                )}
                {txHash && w.tx_hash && (
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
