/**
 * The cabinet's Wallet page: the TRC-20 deposit address with its QR code; withdrawals — the fee
 * quote, the address, the amount, a confirmation saying what moves — and their history with status.
 */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '../api';
import { Confirm } from '../dialog';
import { Money, MoneyInput, useFormatMoney, useToMinor } from '../money';
import { ErrorText, when } from '../ui';
import { DepositAddressSection, WithdrawalsSection, WithdrawForm, withdrawalStatusWords } from '../wallet-parts';
import { useBalance } from './Home';
import { useMemberCan } from './can';

export function CabinetWallet() {
  const can = useMemberCan();
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
      {can('createWithdrawal') && <Withdraw />}
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
    <DepositAddressSection
      address={address}
      whose="the"
      note={(a) => `Current since ${when(a.updated_at)}. Deposits are credited once final on chain.`}
      none={<p>You have no deposit address yet.</p>}
    >
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
    </DepositAddressSection>
  );
}

function Withdraw() {
  const format = useFormatMoney();
  const toMinor = useToMinor('USDT');
  return (
    <WithdrawForm
      feeKey="withdraw-fee"
      quote={(minor) => unwrap(api.GET('/api/v1/p2p/merchant/wallet/withdraw-fee', { params: { query: { amount: minor } } }))}
      create={(body) => unwrap(api.POST('/api/v1/p2p/merchant/wallet/withdraw', { body }))}
      usdt={(minor) => format(minor, 'USDT')}
      toMinor={(text) => toMinor(text)}
      amountField={(value, onChange) => <MoneyInput label="Amount, fee included" currency="USDT" value={value} onChange={onChange} required />}
      made={(w) => `: ${w.status}`}
      afterFee=". Within your automatic limit it is sent at once; above it, an operator approves it first. A transfer on chain cannot be called back."
    />
  );
}

function History() {
  const list = useQuery({
    queryKey: ['withdrawals'],
    queryFn: () => unwrap(api.GET('/api/v1/p2p/merchant/wallet/withdrawals', { params: { query: { page_size: 50 } } })),
  });
  const usdt = (minor: string) => (
    <td>
      <Money minor={minor} currency="USDT" />
    </td>
  );
  return (
    <WithdrawalsSection
      list={list}
      headingId="history"
      whose="the"
      amounts={[
        { name: 'Amount', cell: (w) => usdt(w.amount) },
        { name: 'Fee', cell: (w) => usdt(w.fee_usdt_cents) },
        { name: 'Arrives', cell: (w) => usdt(w.net_usdt_cents) },
      ]}
      status={(w) => (
        <>
          {w.status} <small>({withdrawalStatusWords(w.status)})</small>
        </>
      )}
      txHash
    />
  );
}
