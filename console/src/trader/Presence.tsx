/**
 * The trader's online switch for the app's header: one big switch the thumb reaches, what it means
 * now (online, offline by choice, or paused because the app fell silent, and since when), and while
 * online the heartbeat the gateway needs about every 30 s (usePresenceHeartbeat). A trader whose
 * heartbeat stops is given no deal and is paused (heartbeat_lost) until it switches on again.
 */
import { useEffect } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api';
import { ErrorText, when } from '../ui';

type Presence = Schemas['TraderPresenceResponse']['presence'];
const PRESENCE_KEY = ['trader-presence'];
const HEARTBEAT_MS = 30_000;

function usePresence() {
  return useQuery({ queryKey: PRESENCE_KEY, queryFn: async () => (await unwrap(api.GET('/api/v1/p2p/trader/presence'))).presence, refetchInterval: 60_000 });
}

/** While online and the app is open: a heartbeat every 30 s, its answer kept as the presence. */
function usePresenceHeartbeat(online: boolean) {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!online) return;
    const beat = () =>
      void unwrap(api.POST('/api/v1/p2p/trader/presence/heartbeat'))
        .then((r) => queryClient.setQueryData(PRESENCE_KEY, r.presence))
        .catch(() => {});
    const timer = setInterval(beat, HEARTBEAT_MS);
    return () => clearInterval(timer);
  }, [online, queryClient]);
}

function state(p: Presence): string {
  if (p.online) return p.within_working_hours ? 'Online: deals can reach you' : 'Online, outside your working hours: no deals until they begin';
  if (p.offline_reason === 'heartbeat_lost')
    return `Paused: the app was silent for ${p.heartbeat_timeout_seconds} s${p.offline_at ? ` (since ${when(p.offline_at)})` : ''}. Switch on to work again.`;
  return `Offline: no deals reach you${p.offline_at ? ` (since ${when(p.offline_at)})` : ''}`;
}

export function PresenceSwitch() {
  const queryClient = useQueryClient();
  const presence = usePresence();
  const online = presence.data?.online ?? false;
  usePresenceHeartbeat(online);
  const toggle = useMutation({
    mutationFn: (next: boolean) => unwrap(api.PUT('/api/v1/p2p/trader/presence', { body: { online: next } })),
    onSuccess: (r) => queryClient.setQueryData(PRESENCE_KEY, r.presence),
  });
  if (!presence.data) return <ErrorText error={presence.error} />;
  const p = presence.data;
  return (
    <div className="presence" data-testid="presence">
      <button
        type="button"
        role="switch"
        aria-checked={online}
        className={`presence-switch${online ? ' on' : ''}`}
        disabled={toggle.isPending}
        onClick={() => toggle.mutate(!online)}
      >
        <span className="knob" aria-hidden="true" />
        {online ? 'Online' : 'Offline'}
      </button>
      <span className="presence-state" role="status" data-reason={p.offline_reason ?? ''}>
        {state(p)}
      </span>
      <ErrorText error={toggle.error} />
    </div>
  );
}
