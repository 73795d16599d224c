/**
 * The cabinet's Settings page: the payer page's brand name, the redirects after payment, the deal
 * limits and the IP whitelist of the merchant's servers, saved through PATCH /my-merchant with only
 * the changed fields, after a dialog listing each change (docs/cabinet.md, "Settings"). Roles that
 * may not change them (finance, support) read them.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api';
import { Confirm } from '../dialog';
import { Loaded } from '../list';
import { useCan } from '../session';
import { Text } from '../text';
import { ErrorText, Field } from '../ui';

type Profile = Schemas['MyMerchant'];
type Form = Record<(typeof FIELDS)[number][0], string>;

/** Field, label, hint. Limits bound a deal's amount in whatever currency it is: typed in minor units, exactly as the API keeps them. */
const FIELDS = [
  ['checkout_brand_name', 'Brand name on the payment page', 'What payers see instead of the merchant’s name.'],
  ['success_redirect_url', 'Redirect after a successful payment', 'An https URL; empty: none.'],
  ['fail_redirect_url', 'Redirect after a failed payment', 'An https URL; empty: none.'],
  ['deal_min_amount', 'Smallest deal', 'Minor units of the deal’s currency (150000 = 1 500.00); 0 or empty: no limit.'],
  ['deal_max_amount', 'Largest deal', 'Minor units of the deal’s currency (150000 = 1 500.00); 0 or empty: no limit.'],
  ['daily_deal_amount_limit', 'Deals per day, in total', 'Minor units of the deal’s currency (150000 = 1 500.00); 0 or empty: no limit.'],
  ['ip_whitelist', 'IP whitelist of your servers', 'One address per line; empty: any address may sign requests.'],
] as const;
const LIMIT_FIELDS = new Set(['deal_min_amount', 'deal_max_amount', 'daily_deal_amount_limit']);

function formOf(p: Profile): Form {
  const m = p.merchant;
  const limit = (v: string | undefined) => v ?? '';
  return {
    checkout_brand_name: m.checkout_brand_name,
    success_redirect_url: m.success_redirect_url,
    fail_redirect_url: m.fail_redirect_url,
    deal_min_amount: limit(m.deal_min_amount),
    deal_max_amount: limit(m.deal_max_amount),
    daily_deal_amount_limit: limit(m.daily_deal_amount_limit),
    ip_whitelist: m.ip_whitelist.join('\n'),
  };
}

export function CabinetSettings() {
  const profile = useQuery({ queryKey: ['my-merchant'], queryFn: () => unwrap(api.GET('/api/v1/p2p/my-merchant')) });
  return (
    <>
      <h1>Settings</h1>
      <Loaded query={profile} what="the settings">
        {(p) => <SettingsForm key={p.merchant.updated_at} profile={p} />}
      </Loaded>
    </>
  );
}

function SettingsForm({ profile }: { profile: Profile }) {
  const can = useCan();
  const queryClient = useQueryClient();
  const initial = formOf(profile);
  const [form, setForm] = useState<Form>(initial);
  const [asking, setAsking] = useState(false);
  const editable = can('updateMyMerchant');
  const changed = FIELDS.filter(([key]) => form[key].trim() !== initial[key].trim());
  const bodyOf = () => {
    const body: Record<string, unknown> = {};
    for (const [key] of changed) {
      const value = form[key].trim();
      if (LIMIT_FIELDS.has(key)) {
        if (!/^\d*$/.test(value)) throw new Error(`${key}: whole minor units (digits only), e.g. 150000 for 1 500.00`);
        body[key] = BigInt(value === '' ? '0' : value);
      } else if (key === 'ip_whitelist') body[key] = JSON.stringify(value.split(/[\s,]+/).filter(Boolean));
      else body[key] = value;
    }
    return body;
  };
  const save = useMutation({
    mutationFn: () => unwrap(api.PATCH('/api/v1/p2p/my-merchant', { body: bodyOf() as never })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['my-merchant'] });
    },
  });
  let problem = '';
  try {
    if (asking) bodyOf();
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
  }
  return (
    <form
      aria-label="Merchant settings"
      className="settings"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        if (changed.length) setAsking(true);
      }}
    >
      {FIELDS.map(([key, label, hint]) => (
        <Field key={key} label={label} hint={hint}>
          {key === 'ip_whitelist' ? (
            <textarea rows={3} value={form[key]} readOnly={!editable} onChange={(e) => setForm({ ...form, [key]: e.target.value })} />
          ) : (
            <input
              value={form[key]}
              readOnly={!editable}
              inputMode={LIMIT_FIELDS.has(key) ? 'numeric' : undefined}
              type={key.endsWith('_url') ? 'url' : 'text'}
              onChange={(e) => setForm({ ...form, [key]: e.target.value })}
            />
          )}
        </Field>
      ))}
      {editable ? (
        <button type="submit" className="primary" disabled={changed.length === 0 || save.isPending}>
          Save {changed.length || ''} change{changed.length === 1 ? '' : 's'}…
        </button>
      ) : (
        <p>Your role reads these settings; an owner or a developer changes them.</p>
      )}
      {save.isSuccess && (
        <span role="status" className="done">
          Saved
        </span>
      )}
      <ErrorText error={save.error} />
      {asking && (
        <Confirm
          title="Save these settings?"
          confirmLabel="Save"
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            if (!problem) save.mutate();
          }}
        >
          {problem ? (
            <p className="error">{problem}</p>
          ) : (
            <ul>
              {changed.map(([key, label]) => (
                <li key={key}>
                  {label}: <Text value={initial[key] || '(none)'} /> → <strong>{form[key].trim() ? <Text value={form[key].trim()} /> : '(none)'}</strong>
                </li>
              ))}
            </ul>
          )}
          <p>New deals follow them at once; deals already made keep theirs.</p>
        </Confirm>
      )}
    </form>
  );
}
