/** The cabinet's Home page: which world the merchant is in, balances, pending credits, today's turnover. */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api';
import { Confirm } from '../dialog';
import { DataTable } from '../list';
import { Money, MoneyInput, useFormatMoney, useToMinor } from '../money';
import { ErrorText, Loading, Submit } from '../ui';
import { Text } from '../text';
import { useMemberCan } from './can';

const useMyMerchant = () => useQuery({ queryKey: ['my-merchant'], queryFn: () => unwrap(api.GET('/api/v1/p2p/my-merchant')) });
export const useBalance = () => useQuery({ queryKey: ['balance'], queryFn: () => unwrap(api.GET('/api/v1/p2p/merchant/balance')) });

export function CabinetHome() {
  return (
    <>
      <h1>Home</h1>
      <World />
      <Balances />
      <Turnover />
      <Profile />
    </>
  );
}

/** The header's mark of a sandbox merchant, on every page: play money is never mistaken for real. */
export function SandboxBadge() {
  const profile = useMyMerchant();
  if (profile.data?.merchant.sandbox !== true) return null;
  return (
    <span className="badge sandbox" data-testid="sandbox-badge" title="Play money: deals go to the sandbox trader">
      sandbox
    </span>
  );
}

/** Live or sandbox, said first: play money and real money never mix, and the page says which this is. */
function World() {
  const profile = useMyMerchant();
  if (!profile.data) return null;
  const sandbox = profile.data.merchant.sandbox === true;
  return (
    <section aria-labelledby="world" className={`world ${sandbox ? 'sandbox' : 'live'}`} data-testid="world" data-world={sandbox ? 'sandbox' : 'live'}>
      <h2 id="world">{sandbox ? 'Sandbox: play money' : 'Live: real money'}</h2>
      {sandbox ? (
        <>
          <p>
            Your deals go to the built-in sandbox trader, which acts on its own after a few seconds, following the last two digits of the amount (…00 completes,
            …05 fails, …33 expires). Withdrawals go to a simulated chain. Nothing here is real money.
          </p>
          <fieldset className="switch">
            <legend>World</legend>
            <label>
              <input type="radio" name="world" checked readOnly /> Sandbox (now)
            </label>
            <label>
              <input type="radio" name="world" disabled aria-describedby="go-live" /> Live
            </label>
            <small id="go-live">
              Going live is the operator’s switch: ask your platform contact. It is possible only while this merchant has no deals, withdrawals or deposits — a
              merchant never changes worlds with money in it.
            </small>
          </fieldset>
          <PlayMoney />
        </>
      ) : (
        <p>Deals go to real traders and withdrawals to TRON. Every money action says what will move before it moves.</p>
      )}
    </section>
  );
}

/** Play USDT for a sandbox merchant (POST /sandbox/deposits): the deposit path a chain deposit takes. */
function PlayMoney() {
  const can = useMemberCan();
  const queryClient = useQueryClient();
  const [amount, setAmount] = useState('');
  const [asking, setAsking] = useState<string | null>(null);
  const toMinor = useToMinor('USDT');
  const format = useFormatMoney();
  const [error, setError] = useState<unknown>(null);
  const deposit = useMutation({
    mutationFn: (minor: string) => unwrap(api.POST('/api/v1/p2p/merchant/sandbox/deposits', { body: { amount: BigInt(minor) as unknown as number } })),
    onSuccess: () => queryClient.invalidateQueries(),
  });
  if (!can('sandboxDeposit')) return null;
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        setError(null);
        try {
          setAsking(toMinor(amount, 'the amount'));
        } catch (err) {
          setError(err);
        }
      }}
    >
      <MoneyInput label="Add play money" currency="USDT" value={amount} onChange={setAmount} required />
      <Submit label="Add play money…" mutation={deposit} done="Added to your available balance" />
      <ErrorText error={error} />
      {asking && (
        <Confirm
          title="Add play money"
          confirmLabel={`Add ${format(asking, 'USDT')}`}
          onCancel={() => setAsking(null)}
          onConfirm={() => {
            deposit.mutate(asking);
            setAsking(null);
          }}
        >
          {format(asking, 'USDT')} of play money will be credited to your available balance, as a confirmed deposit is. It is sandbox money: it cannot be
          withdrawn to a real address.
        </Confirm>
      )}
    </form>
  );
}

function Balances() {
  const balance = useBalance();
  return (
    <section aria-labelledby="balances">
      <h2 id="balances">Balances</h2>
      {balance.isPending ? (
        <Loading what="the balances" />
      ) : balance.error ? (
        <ErrorText error={balance.error} />
      ) : (
        <DataTable
          caption="Balances"
          columns={['Currency', 'Available', 'Held (frozen)', 'Total', 'Pending credits']}
          rows={balance.data.wallets}
          rowKey={(w) => w.wallet_id}
          empty="No wallet yet: it appears with the first deposit or deal."
          row={(w) => (
            <tr data-testid={`balance-${w.currency}`}>
              <td>{w.currency}</td>
              <td data-testid="available">
                <Money minor={w.available} currency={w.currency} />
              </td>
              <td>
                <Money minor={w.frozen} currency={w.currency} />
              </td>
              <td>
                <Money minor={w.total} currency={w.currency} />
              </td>
              <td>
                <Money minor={w.pending_credits} currency={w.currency} />
              </td>
            </tr>
          )}
        />
      )}
      <p className="hint">Held: PayOuts and withdrawals in progress. Pending credits: completed PayIns whose fee is not yet settled.</p>
    </section>
  );
}

/** Today (UTC): the turnover route's bucket of today's date. */
function Turnover() {
  const today = new Date().toISOString().slice(0, 10);
  const turnover = useQuery({
    queryKey: ['turnover', today],
    queryFn: () => unwrap(api.GET('/api/v1/p2p/merchant/deals/turnover', { params: { query: { created_after: `${today}T00:00:00Z` } } })),
  });
  return (
    <section aria-labelledby="turnover">
      <h2 id="turnover">Today’s turnover ({today}, UTC)</h2>
      {turnover.isPending ? (
        <Loading what="today’s turnover" />
      ) : turnover.error ? (
        <ErrorText error={turnover.error} />
      ) : (
        <DataTable
          caption="Today’s turnover"
          columns={['Deals', 'Currency', 'Count', 'Volume']}
          rows={turnover.data.data.filter((b) => b.date === today)}
          rowKey={(b) => `${b.deal_type}-${b.currency}`}
          empty="No deals today yet."
          row={(b) => (
            <tr>
              <td>{b.deal_type === 'PAYIN' ? 'PayIns' : 'PayOuts'}</td>
              <td>{b.currency}</td>
              <td>{b.count}</td>
              <td>
                <Money minor={b.amount} currency={b.currency} />
              </td>
            </tr>
          )}
        />
      )}
      <p className="hint">Expired, rejected and failed deals are not counted.</p>
    </section>
  );
}

/** The merchant's profile as the cabinet reads it (GET /my-merchant). */
function Profile() {
  const profile = useMyMerchant();
  if (profile.isPending) return <Loading what="the profile" />;
  if (profile.error) return <ErrorText error={profile.error} />;
  const m = profile.data.merchant;
  return (
    <section aria-labelledby="profile">
      <h2 id="profile">Profile</h2>
      <dl data-testid="profile">
        <dt>Merchant id</dt>
        <dd className="mono">{m.id}</dd>
        <dt>Webhook URL</dt>
        <dd>
          <Text value={m.webhook_url || 'none'} />
        </dd>
        <dt>Operator's kill-switch</dt>
        <dd>
          {m.kill_switch ? (
            <>
              on: an operator stopped this merchant; deals, PayOuts and withdrawals are refused until it is turned off. <Text value={m.kill_switch_reason} />
            </>
          ) : (
            'off: the merchant works as usual'
          )}
        </dd>
      </dl>
    </section>
  );
}
