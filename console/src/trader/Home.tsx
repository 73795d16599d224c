/**
 * The trader's day at a glance: whether the trader may work yet (an operator approves an invited
 * trader) and where each part of the work is. The other sections add their own lines here.
 */
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api';
import { Link } from '../router';
import { useTraderSession } from '../Trader';
import { Text } from '../text';
import { DealsToday } from './Deals';
import { SilentDevices } from './Devices';

export function TraderHome() {
  const session = useTraderSession();
  const trader = session.data?.trader;
  if (!trader) return <h1>Today</h1>;
  return (
    <>
      <h1>Today</h1>
      <SilentDevices />
      {trader.approved ? (
        <p data-testid="trader-standing">
          <Text value={trader.name} /> is approved: the gateway gives you deals while you are online and your requisites and balance allow.
        </p>
      ) : (
        <div className="card" role="status" data-testid="trader-standing">
          <h2>Waiting for approval</h2>
          <p>
            An operator approves your account before the gateway gives you any deal. Meanwhile you can add your requisites: each is checked by an operator
            before its first use.
          </p>
        </div>
      )}
      <MoneyLine />
      <DealsToday />
    </>
  );
}

/** Whether the trader's money lets it get deals (the Wallet says why not and how to fix it). */
function MoneyLine() {
  const wallet = useQuery({ queryKey: ['trader-wallet'], queryFn: () => unwrap(api.GET('/api/v1/p2p/trader/wallet')) });
  if (!wallet.data) return null;
  return (
    <p data-testid="money-line">
      {wallet.data.wallet.in_pool ? 'Your balance and security deposit let you get deals.' : 'Your money does not let you get new deals now.'}{' '}
      <Link to="/wallet">Wallet</Link>
    </p>
  );
}
