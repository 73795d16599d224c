/**
 * The trader's requisites: each card, phone or IBAN with its status (an operator approves a new one,
 * and new payment details, before their first deal), its limits, and its moves — pause, resume,
 * archive, each confirmed by a dialog whose words come from the requisites' state table. Amounts
 * are typed and shown in major units of the method's currency ("1 500.00 RUB"), sent in minor units.
 */
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { REQUISITE_TRANSITIONS, type RequisiteMove } from '../../../domain/state/requisites';
import { api, int64, unwrap, type Schemas } from '../api';
import { formatMinor, parseMajor } from '../amounts';
import { Confirm } from '../dialog';
import { ErrorText, Field, Loading, Submit } from '../ui';
import { Text } from '../text';
import { REQUISITE_TYPE_WORDS } from './words';
import { useRoute } from '../router';
import { DevicesLine, TraderDevices } from './Devices';

type Requisite = Schemas['TraderRequisite'];
type Method = Schemas['TraderRequisiteList']['payment_methods'][number];
const KEY = ['trader-requisites'];
const STATUS_WORDS: Record<string, string> = {
  PENDING_APPROVAL: 'waiting for approval',
  ACTIVE: 'active',
  PAUSED: 'paused',
  REJECTED: 'rejected',
  ARCHIVED: 'archived',
};

/** An amount in major units with its currency, and under it what the API will get or why not. */
function MajorInput({
  label,
  currency,
  exponent,
  value,
  onChange,
  required,
}: {
  label: string;
  currency: string;
  exponent: number;
  value: string;
  onChange: (v: string) => void;
  required?: boolean;
}) {
  const unitId = useId();
  let reading = '';
  if (value.trim() !== '') {
    try {
      reading = `= ${formatMinor(parseMajor(value, exponent), exponent)} ${currency}`;
    } catch (error) {
      reading = (error as Error).message;
    }
  }
  return (
    <Field label={`${label} (${currency})`} hint={reading || undefined}>
      <span className="money-input">
        <input inputMode="decimal" autoComplete="off" required={required} aria-describedby={unitId} value={value} onChange={(e) => onChange(e.target.value)} />
        <span id={unitId} className="unit">
          {currency}
        </span>
      </span>
    </Field>
  );
}

const major = (minor: string | null, exponent: number) => (minor === null ? '' : formatMinor(minor, exponent).replace(/\s/g, ''));
/** Typed major units → an int64 for the body; empty → null (no limit). */
const amountOf = (text: string, exponent: number, what: string) => (text.trim() === '' ? null : int64(parseMajor(text, exponent, what)));
const countOf = (text: string) => (text.trim() === '' ? null : Number.parseInt(text, 10));

interface LimitsForm {
  min_amount: string;
  max_amount: string;
  daily_limit: string;
  daily_count_limit: string;
  monthly_limit: string;
  max_live_deals: string;
  cooldown_seconds: string;
}

function limitsBody(f: LimitsForm, exponent: number) {
  return {
    min_amount: amountOf(f.min_amount, exponent, 'the minimum')!,
    max_amount: amountOf(f.max_amount, exponent, 'the maximum')!,
    daily_limit: amountOf(f.daily_limit, exponent, 'the daily volume'),
    daily_count_limit: countOf(f.daily_count_limit),
    monthly_limit: amountOf(f.monthly_limit, exponent, 'the monthly volume'),
    max_live_deals: countOf(f.max_live_deals),
    cooldown_seconds: f.cooldown_seconds.trim() === '' ? 0 : Number.parseInt(f.cooldown_seconds, 10),
  };
}

function LimitFields({
  form,
  set,
  currency,
  exponent,
}: {
  form: LimitsForm;
  set: (k: keyof LimitsForm, v: string) => void;
  currency: string;
  exponent: number;
}) {
  return (
    <>
      <MajorInput label="Smallest deal" currency={currency} exponent={exponent} value={form.min_amount} onChange={(v) => set('min_amount', v)} required />
      <MajorInput label="Largest deal" currency={currency} exponent={exponent} value={form.max_amount} onChange={(v) => set('max_amount', v)} required />
      <MajorInput
        label="Volume per day (UTC), empty: no limit"
        currency={currency}
        exponent={exponent}
        value={form.daily_limit}
        onChange={(v) => set('daily_limit', v)}
      />
      <Field label="Deals per day (UTC), empty: no limit">
        <input inputMode="numeric" value={form.daily_count_limit} onChange={(e) => set('daily_count_limit', e.target.value)} />
      </Field>
      <MajorInput
        label="Volume per month (UTC), empty: no limit"
        currency={currency}
        exponent={exponent}
        value={form.monthly_limit}
        onChange={(v) => set('monthly_limit', v)}
      />
      <Field label="Deals at once, empty: no limit" hint="Deals on it that are not finished yet.">
        <input inputMode="numeric" value={form.max_live_deals} onChange={(e) => set('max_live_deals', e.target.value)} />
      </Field>
      <Field label="Pause between deals (seconds)">
        <input inputMode="numeric" value={form.cooldown_seconds} onChange={(e) => set('cooldown_seconds', e.target.value)} />
      </Field>
    </>
  );
}

/** The Requisites section: the requisites, and under /requisites/devices the phones that confirm their payments. */
export function TraderRequisites() {
  const { path } = useRoute();
  if (path === '/requisites/devices') return <TraderDevices />;
  return <RequisiteList />;
}

function RequisiteList() {
  const list = useQuery({ queryKey: KEY, queryFn: () => unwrap(api.GET('/api/v1/p2p/trader/requisites')) });
  if (!list.data) return list.error ? <ErrorText error={list.error} /> : <Loading what="your requisites" />;
  const methods = list.data.payment_methods;
  return (
    <>
      <h1>Requisites</h1>
      <p>
        Payers pay to these. An operator checks a new requisite, and new payment details, before the first deal. Days and months are UTC; at most one unfinished
        PayIn of one amount is on a requisite at a time.
      </p>
      <DevicesLine />
      {list.data.data.length === 0 && <p>No requisites yet.</p>}
      {list.data.data.map((r) => (
        <RequisiteCard
          key={r.requisite_id}
          requisite={r}
          exponent={methods.find((m) => m.slug === r.payment_method)?.exponent ?? 2}
          methodName={methods.find((m) => m.slug === r.payment_method)?.name ?? r.payment_method}
        />
      ))}
      <AddRequisite methods={methods} />
    </>
  );
}

function RequisiteCard({ requisite: r, exponent, methodName }: { requisite: Requisite; exponent: number; methodName: string }) {
  const number = r.card_number || r.phone_number || r.iban;
  const fmt = (minor: string | null) => (minor === null ? 'no limit' : `${formatMinor(minor, exponent)} ${r.currency}`);
  return (
    <section className="card" aria-label={`Requisite ${number}`} data-testid="requisite" data-status={r.status}>
      <h2>
        <span className="mono">{number}</span> <span className="badge">{STATUS_WORDS[r.status] ?? r.status}</span>
      </h2>
      <p>
        <Text value={methodName} /> · <Text value={r.holder_name} /> · <Text value={r.bank_name} />
      </p>
      {r.status === 'REJECTED' && (
        <p role="note">
          Rejected: <Text value={r.rejection_reason} />. Correct the details to send it for approval again.
        </p>
      )}
      <ul className="limits">
        <li>
          Per deal {fmt(r.limits.min_amount)} – {fmt(r.limits.max_amount)}
        </li>
        <li>
          Per day {fmt(r.limits.daily_limit)}, {r.limits.daily_count_limit ?? 'any number of'} deals
        </li>
        <li>Per month {fmt(r.limits.monthly_limit)}</li>
        <li>
          {r.limits.max_live_deals ?? 'Any number of'} deals at once · {r.limits.cooldown_seconds} s between deals
        </li>
      </ul>
      {r.status !== 'ARCHIVED' && (
        <div className="actions">
          {r.status === 'ACTIVE' && <Move requisite={r} move="pause" label="Pause" />}
          {r.status === 'PAUSED' && <Move requisite={r} move="resume" label="Resume" />}
          <Move requisite={r} move="archive" label="Archive" tone="danger" />
        </div>
      )}
      {r.status !== 'ARCHIVED' && <EditLimits requisite={r} exponent={exponent} />}
    </section>
  );
}

function Move({
  requisite,
  move,
  label,
  tone = 'primary',
}: {
  requisite: Requisite;
  move: Extract<RequisiteMove, 'pause' | 'resume' | 'archive'>;
  label: string;
  tone?: 'primary' | 'danger';
}) {
  const queryClient = useQueryClient();
  const [asking, setAsking] = useState(false);
  const number = requisite.card_number || requisite.phone_number || requisite.iban;
  const run = useMutation({
    mutationFn: () => unwrap(api.POST(`/api/v1/p2p/trader/requisites/{requisite_id}/${move}`, { params: { path: { requisite_id: requisite.requisite_id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
  const t = REQUISITE_TRANSITIONS[move];
  return (
    <>
      <button type="button" className={tone} disabled={run.isPending} onClick={() => setAsking(true)}>
        {label}…
      </button>
      {asking && (
        <Confirm
          title={`${label} ${number}`}
          confirmLabel={label}
          tone={tone}
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            run.mutate();
          }}
        >
          <p>
            It becomes {STATUS_WORDS[t.to!]}. {t.effect}
          </p>
        </Confirm>
      )}
      <ErrorText error={run.error} />
    </>
  );
}

function EditLimits({ requisite: r, exponent }: { requisite: Requisite; exponent: number }) {
  const queryClient = useQueryClient();
  const initial: LimitsForm = {
    min_amount: major(r.limits.min_amount, exponent),
    max_amount: major(r.limits.max_amount, exponent),
    daily_limit: major(r.limits.daily_limit, exponent),
    daily_count_limit: r.limits.daily_count_limit?.toString() ?? '',
    monthly_limit: major(r.limits.monthly_limit, exponent),
    max_live_deals: r.limits.max_live_deals?.toString() ?? '',
    cooldown_seconds: r.limits.cooldown_seconds.toString(),
  };
  const [form, setForm] = useState(initial);
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/api/v1/p2p/trader/requisites/{requisite_id}', { params: { path: { requisite_id: r.requisite_id } }, body: limitsBody(form, exponent) }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
  return (
    <details>
      <summary>Edit limits</summary>
      <form
        className="grid"
        aria-label="Edit limits"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <LimitFields form={form} set={(k, v) => setForm({ ...form, [k]: v })} currency={r.currency} exponent={exponent} />
        <p>{REQUISITE_TRANSITIONS.edit_limits.effect} The status stays.</p>
        <div>
          <Submit label="Save limits" mutation={save} done="Saved" />
        </div>
      </form>
    </details>
  );
}

const NUMBER_FIELD = (type: string) => (type === 'SBP' || type === 'SIM' ? 'phone_number' : type === 'BANK_TRANSFER' ? 'iban' : 'card_number');
const NUMBER_LABEL: Record<string, string> = { phone_number: 'Phone number', iban: 'IBAN', card_number: 'Card number' };

function AddRequisite({ methods }: { methods: Method[] }) {
  const queryClient = useQueryClient();
  const emptyLimits: LimitsForm = {
    min_amount: '',
    max_amount: '',
    daily_limit: '',
    daily_count_limit: '',
    monthly_limit: '',
    max_live_deals: '',
    cooldown_seconds: '',
  };
  const [slug, setSlug] = useState(methods[0]?.slug ?? '');
  const method = methods.find((m) => m.slug === slug);
  const [type, setType] = useState(method?.requisite_types[0] ?? 'BANK_CARD');
  const [details, setDetails] = useState({ number: '', holder_name: '', bank_name: '' });
  const [limits, setLimits] = useState(emptyLimits);
  const add = useMutation({
    mutationFn: () => {
      const body = limitsBody(limits, method?.exponent ?? 2);
      return unwrap(
        api.POST('/api/v1/p2p/trader/requisites', {
          body: {
            payment_method: slug,
            requisite_type: type as Schemas['CreateTraderRequisiteRequest']['requisite_type'],
            [NUMBER_FIELD(type)]: details.number.trim(),
            holder_name: details.holder_name,
            bank_name: details.bank_name,
            ...body,
          },
        }),
      );
    },
    onSuccess: async () => {
      setDetails({ number: '', holder_name: '', bank_name: '' });
      setLimits(emptyLimits);
      await queryClient.invalidateQueries({ queryKey: KEY });
    },
  });
  const field = (k: keyof typeof details, label: string, extra?: ReactNode) => (
    <Field label={label}>
      <input required value={details[k]} onChange={(e) => setDetails({ ...details, [k]: e.target.value })} />
      {extra}
    </Field>
  );
  return (
    <section className="card" aria-label="Add a requisite">
      <h2>Add a requisite</h2>
      <form
        className="grid"
        aria-label="New requisite"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          add.mutate();
        }}
      >
        <Field label="Payment method">
          <select
            value={slug}
            onChange={(e) => {
              setSlug(e.target.value);
              setType(methods.find((m) => m.slug === e.target.value)?.requisite_types[0] ?? 'BANK_CARD');
            }}
          >
            {methods.map((m) => (
              <option key={m.slug} value={m.slug}>
                {m.name.includes(m.currency) ? m.name : `${m.name} (${m.currency})`}
              </option>
            ))}
          </select>
        </Field>
        {method && method.requisite_types.length > 1 && (
          <Field label="Type">
            <select value={type} onChange={(e) => setType(e.target.value)}>
              {method.requisite_types.map((t) => (
                <option key={t} value={t}>
                  {REQUISITE_TYPE_WORDS[t] ?? t}
                </option>
              ))}
            </select>
          </Field>
        )}
        {field('number', NUMBER_LABEL[NUMBER_FIELD(type)]!)}
        {field('holder_name', 'Holder name')}
        {field('bank_name', 'Bank')}
        <LimitFields form={limits} set={(k, v) => setLimits({ ...limits, [k]: v })} currency={method?.currency ?? ''} exponent={method?.exponent ?? 2} />
        <p>It waits for an operator’s approval before its first deal.</p>
        <div>
          <Submit label="Add requisite" mutation={add} done="Added: waiting for approval" />
        </div>
      </form>
    </section>
  );
}
