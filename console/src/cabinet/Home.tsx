/** The cabinet's Home page: balances, pending credits, today's turnover. */
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api';
import { ErrorText, Loading } from '../ui';
import { Text } from '../text';

export function CabinetHome() {
  return (
    <>
      <h1>Home</h1>
      <Profile />
    </>
  );
}

/** The merchant's profile as the cabinet reads it (GET /my-merchant). */
function Profile() {
  const profile = useQuery({ queryKey: ['my-merchant'], queryFn: () => unwrap(api.GET('/api/v1/p2p/my-merchant')) });
  if (profile.isPending) return <Loading what="the profile" />;
  if (profile.error) return <ErrorText error={profile.error} />;
  const m = profile.data.merchant;
  return (
    <dl data-testid="profile">
      <dt>Merchant id</dt>
      <dd className="mono">{m.id}</dd>
      <dt>Webhook URL</dt>
      <dd>
        <Text value={m.webhook_url || 'none'} />
      </dd>
      <dt>Kill-switch</dt>
      <dd>{m.kill_switch ? 'on: the merchant is disabled' : 'off'}</dd>
    </dl>
  );
}
