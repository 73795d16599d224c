/**
 * The cabinet's Developers page: the webhook URL, its state (paused, failing or OK, and why) and a
 * "Send test event" button that goes through the real delivery path; the delivery log with the
 * retry of a failed delivery; the events feed; the key pair's rotation, the new secret shown once
 * (docs/cabinet.md, "Developers").
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api';
import { Confirm } from '../dialog';
import { Loaded, PagedTable, usePagedList } from '../list';
import { Link } from '../router';
import { useCan } from '../session';
import { Text } from '../text';
import { Action, ErrorText, Field, Submit, when } from '../ui';

export function CabinetDevelopers() {
  return (
    <>
      <h1>Developers</h1>
      <Webhook />
      <DeliveryLog />
      <EventsFeed />
      <Keys />
    </>
  );
}

const endpointQuery = {
  queryKey: ['cabinet-webhook-endpoint'],
  queryFn: () => unwrap(api.GET('/api/v1/p2p/cabinet/webhook/endpoint')),
};

const STATE_WORDS: Record<Schemas['CabinetWebhookEndpoint']['state'], string> = {
  NO_URL: 'No webhook URL',
  UNUSED: 'Not used yet',
  OK: 'Delivering',
  FAILING: 'Failing',
  PAUSED: 'Paused',
  DISABLED: 'Stopped',
};

function Webhook() {
  const can = useCan();
  const queryClient = useQueryClient();
  const endpoint = useQuery({ ...endpointQuery, refetchInterval: 5000 });
  const [url, setUrl] = useState<string | undefined>(undefined);
  const [sent, setSent] = useState<Schemas['CabinetTestEvent'] | undefined>();
  const save = useMutation({
    mutationFn: (webhook_url: string) => unwrap(api.PATCH('/api/v1/p2p/my-merchant', { body: { webhook_url } })),
    onSuccess: async () => {
      setUrl(undefined);
      await queryClient.invalidateQueries();
    },
  });
  const current = endpoint.data?.url ?? '';
  const shown = url ?? current;
  return (
    <section aria-labelledby="webhook-heading">
      <h2 id="webhook-heading">Webhook</h2>
      <Loaded query={endpoint} what="the webhook endpoint">
        {(e) => (
          <p data-testid="endpoint-state" data-state={e.state} className={`endpoint-state state-${e.state.toLowerCase()}`}>
            <strong>{STATE_WORDS[e.state]}</strong>: <Text value={e.reason} />
            {e.paused_until && <> — the next probe after {when(e.paused_until)}</>}
            {e.last_attempt_at && <> (last attempt {when(e.last_attempt_at)})</>}
          </p>
        )}
      </Loaded>
      {can('updateMyMerchant') ? (
        <form
          aria-label="Set the webhook URL"
          className="inline-form"
          onSubmit={(ev: FormEvent) => {
            ev.preventDefault();
            save.mutate(shown.trim());
          }}
        >
          <Field label="Webhook URL" hint="Every event of your deals, appeals and wallet is POSTed here, signed with your key pair's secret.">
            <input type="url" value={shown} required onChange={(ev) => setUrl(ev.target.value)} placeholder="https://example.com/hooks" />
          </Field>
          <Submit label="Save URL" mutation={save} done="Saved" />
        </form>
      ) : (
        <p>
          Webhook URL: <Text value={current || 'none'} />
        </p>
      )}
      <Action
        op="cabinetSendTestEvent"
        label="Send test event"
        disabled={!current}
        run={() => unwrap(api.POST('/api/v1/p2p/cabinet/webhook/test-event'))}
        onDone={setSent}
      />
      {sent && (
        <p role="status" data-testid="test-event-sent">
          A <span className="mono">webhook.test</span> event (<span className="mono">{sent.event_id.slice(0, 8)}</span>) is on its way to{' '}
          <Text value={sent.url} />: the delivery log below shows its answer.
        </p>
      )}
    </section>
  );
}

type Delivery = Schemas['CallbackDelivery'];

function DeliveryLog() {
  const paged = usePagedList(
    ['cabinet-deliveries'],
    (page_token) => unwrap(api.GET('/api/v1/p2p/cabinet/deliveries', { params: { query: { page_token, page_size: 20 } } })),
    {
      refetchInterval: 3000,
    },
  );
  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Delivery log</h2>
      <PagedTable
        paged={paged}
        what="the deliveries"
        caption="Webhook deliveries, newest first"
        columns={['Event', 'Deal', 'Status', 'Attempts', 'HTTP', 'Answer', 'Updated', '']}
        rowKey={(d: Delivery) => d.callback_id}
        empty="No delivery yet."
        row={(d: Delivery) => (
          <tr data-testid="delivery-row" data-event={d.event_id} data-status={d.status}>
            <td className="mono">{d.event_type}</td>
            <td>
              {d.deal_id ? (
                <Link to={`/deals/${d.deal_id}`} className="mono" title={`deal ${d.deal_id}`}>
                  {d.deal_id.slice(0, 8)}
                </Link>
              ) : (
                <span className="muted">—</span>
              )}
            </td>
            <td>{d.status}</td>
            <td className="num">{d.attempts}</td>
            <td>{d.http_status || 'none'}</td>
            <td>
              <Text value={d.response_body.slice(0, 120) || '(empty)'} />
            </td>
            <td>{when(d.updated_at)}</td>
            <td>
              {(d.status === 'ERROR' || d.status === 'RETRY') && (
                <Action
                  op="cabinetRetryDelivery"
                  label="Retry"
                  run={() => unwrap(api.POST('/api/v1/p2p/cabinet/deliveries/{callback_id}/retry', { params: { path: { callback_id: d.callback_id } } }))}
                  confirm={{
                    title: `Retry the ${d.event_type} webhook?`,
                    text: (
                      <p>
                        The same event is sent once more to <Text value={d.url} />, now. The delivery becomes RETRY until the answer: then SUCCESS, or{' '}
                        {d.status} again if it fails. No money moves.
                      </p>
                    ),
                    label: 'Send it again',
                  }}
                />
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}

type FeedEvent = Schemas['WebhookEvent'];
const FEED_PAGE = 20;

/** What an event is about: its object's id (a deal, an appeal, a withdrawal, a deposit), or the test's sender. */
function subjectOf(e: FeedEvent): string {
  const x = e as Record<string, unknown> & { deal?: { deal_id: string }; appeal?: { appeal_id: string }; test?: { requested_by: string } };
  if (x.deal) return `deal ${x.deal.deal_id.slice(0, 8)}`;
  if (x.appeal) return `appeal ${x.appeal.appeal_id.slice(0, 8)}`;
  if (x.test) return `sent by ${x.test.requested_by}`;
  return '';
}

function EventsFeed() {
  // The feed's token is never empty; a page shorter than asked is its end for now.
  const paged = usePagedList(['cabinet-events'], async (page_token) => {
    const page = await unwrap(api.GET('/api/v1/p2p/merchant/events', { params: { query: { page_token, page_size: FEED_PAGE } } }));
    return { data: page.data, next_page_token: page.data.length < FEED_PAGE ? undefined : page.next_page_token };
  });
  return (
    <section aria-labelledby="events-heading">
      <h2 id="events-heading">Events feed</h2>
      <p className="muted">Every event your webhooks carried, oldest first — what your servers read from GET /events to catch up.</p>
      <PagedTable
        paged={paged}
        what="the events"
        caption="Events, oldest first"
        columns={['Event', 'About', 'Happened']}
        rowKey={(e: FeedEvent) => e.event_id}
        empty="No event yet."
        row={(e: FeedEvent) => (
          <tr>
            <td className="mono">{e.type}</td>
            <td>
              <Text value={subjectOf(e)} />
            </td>
            <td>{when(e.created_at)}</td>
          </tr>
        )}
      />
    </section>
  );
}

function Keys() {
  const can = useCan();
  const endpoint = useQuery(endpointQuery);
  const [asking, setAsking] = useState(false);
  const [pair, setPair] = useState<{ token: string; secret: string; oldUntil: string } | undefined>();
  const rotate = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/p2p/merchant/api-keys/rotate')),
    onSuccess: (keys) => setPair({ ...keys, oldUntil: new Date(Date.now() + (endpoint.data?.key_grace_seconds ?? 0) * 1000).toISOString() }),
  });
  if (!can('rotateApiKeys')) return null;
  const grace = endpoint.data?.key_grace_seconds;
  const minutes = grace === undefined ? undefined : Math.round(grace / 60);
  const until = grace === undefined ? '' : when(new Date(Date.now() + grace * 1000).toISOString());
  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      <p>Your servers sign their requests with the key pair's secret; the same secret signs the webhooks they receive.</p>
      <button type="button" className="danger" onClick={() => setAsking(true)} disabled={rotate.isPending || grace === undefined}>
        Rotate keys…
      </button>
      <ErrorText error={rotate.error} />
      {asking && (
        <Confirm
          title="Rotate the key pair?"
          confirmLabel="Rotate now"
          tone="danger"
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            rotate.mutate();
          }}
        >
          <p>
            A new token and secret are made and work at once.{' '}
            <strong>
              The old pair stops working in {minutes} minutes, at about {until}
            </strong>
            : put the new secret in your servers before then. Webhooks are signed with both secrets until that time. The new secret is shown once, on this page.
          </p>
        </Confirm>
      )}
      {pair && (
        <div className="secret-once" role="status" data-testid="new-keys">
          <p>
            <strong>Copy the secret now: it is not shown again.</strong> The old pair stops working at about {when(pair.oldUntil)}.
          </p>
          <dl>
            <dt>Token</dt>
            <dd className="mono">{pair.token}</dd>
            <dt>Secret</dt>
            <dd className="mono" data-testid="new-secret">
              {pair.secret}
            </dd>
          </dl>
          <button type="button" onClick={() => setPair(undefined)}>
            I have stored it
          </button>
        </div>
      )}
    </section>
  );
}
