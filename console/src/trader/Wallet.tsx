/**
 * The trader's Wallet: its USDT (available, and what is frozen: escrow, security deposit,
 * withdrawals), whether its money lets it get deals and why not, its TRC-20 deposit address with
 * a QR code, a withdrawal (an operator approves it), each deal's money and the withdrawals.
 * Amounts come from the API in minor units; USDT's are cents, a fiat currency's its ISO 4217
 * exponent (Intl knows it), so the page needs no catalogue the trader's door does not serve.
 */
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api';
import { parseMajor } from '../amounts';
import { DataTable } from '../list';
import { ErrorText, Field, Loading, when } from '../ui';
import { DepositAddressSection, WithdrawalsSection, WithdrawForm, withdrawalStatusWords } from '../wallet-parts';
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
    <DepositAddressSection
      address={address}
      whose="your"
      note={() => 'It is yours for good. A deposit is credited once final on chain; a security deposit still short is held from it first.'}
    />
  );
}

function Withdraw() {
  return (
    <WithdrawForm
      feeKey="trader-withdraw-fee"
      quote={(minor) => unwrap(api.GET('/api/v1/p2p/trader/withdrawals/fee', { params: { query: { amount: minor } } }))}
      create={(body) => unwrap(api.POST('/api/v1/p2p/trader/withdrawals', { body }))}
      usdt={usdt}
      toMinor={(text) => parseMajor(text, 2)}
      amountField={(value, onChange, problem) => (
        <Field label="Amount in USDT, fee included" hint={problem}>
          <input value={value} onChange={(e) => onChange(e.target.value)} required inputMode="decimal" autoComplete="off" />
        </Field>
      )}
      made={(w) => <> made: {withdrawalStatusWords(w.status)} — an operator approves it before it is sent.</>}
      afterFee={
        <>
          , once an operator approves it (two operators for a large amount). A transfer on chain cannot be called back. Below your minimum working balance you
          get no new deals.
        </>
      }
    />
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

function Withdrawals() {
  const list = useQuery({
    queryKey: ['trader-withdrawals'],
    queryFn: () => unwrap(api.GET('/api/v1/p2p/trader/withdrawals', { params: { query: { page_size: 50 } } })),
  });
  return (
    <WithdrawalsSection
      list={list}
      headingId="withdrawals"
      whose="your"
      amounts={[{ name: 'Amount', cell: (w) => <td className="num">{usdt(w.amount)}</td> }]}
      status={(w) => withdrawalStatusWords(w.status)}
    />
  );
}
