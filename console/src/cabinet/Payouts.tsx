/**
 * The cabinet's PayOuts page: a single PayOut with the hold it takes (GET /deals/payout/quote)
 * before it is sent; many from a CSV file — each row's idempotency key derived from the file's
 * row (so uploading the same file again creates nothing new), each row's hold previewed, then a
 * result per row.
 */
import { useMemo, useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { parse } from 'csv-parse/browser/esm/sync';
import { api, ApiError, unwrap } from '../api';
import { Confirm } from '../dialog';
import { DataTable } from '../list';
import { Money, MoneyInput, parseMajor, useExponent, useFormatMoney } from '../money';
import { ErrorText, Field, Loading } from '../ui';
import { Text } from '../text';
import { useBalance } from './Home';
import { useMemberCan } from './can';

type Quote = {
  amount: string;
  currency: string;
  rate_micro: string;
  amount_usdt_cents: string;
  fee_usdt_cents: string;
  hold_usdt_cents: string;
  available_usdt_cents: string;
};
type PayoutInput = {
  amount: string;
  currency: string;
  payment_method: string;
  target_requisite: string;
  target_name?: string;
  target_bank?: string;
  idempotency_key: string;
};

const usePaymentMethods = () => useQuery({ queryKey: ['payment-methods'], queryFn: () => unwrap(api.GET('/api/v1/p2p/merchant/payment-methods')) });
const useMerchantCurrencies = () =>
  useQuery({ queryKey: ['currencies'], queryFn: () => unwrap(api.GET('/api/v1/p2p/merchant/currencies')), staleTime: 600_000 });

const quote = (amount: string, currency: string): Promise<Quote> =>
  unwrap(api.GET('/api/v1/p2p/merchant/deals/payout/quote', { params: { query: { amount, currency } } }));

/** Creates one PayOut; `replayed` when the key had made it before (the answer's Idempotent-Replayed). */
async function createPayout(walletId: string, input: PayoutInput) {
  const { idempotency_key, amount, ...rest } = input;
  const call = api.POST('/api/v1/p2p/merchant/deals/payout', {
    body: {
      ...rest,
      idempotency_key,
      wallet_id: walletId,
      // int64 exactly: api.ts writes a bigint's digits into the JSON.
      amount: BigInt(amount) as unknown as number,
      target_name: rest.target_name || undefined,
      target_bank: rest.target_bank || undefined,
    },
  });
  const response = (await call).response;
  const deal = await unwrap(call);
  return { deal: deal.deal, replayed: response.headers.get('Idempotent-Replayed') === 'true' };
}

export function CabinetPayouts() {
  const can = useMemberCan();
  const balance = useBalance();
  const wallet = balance.data?.wallets.find((w) => w.currency === 'USDT');
  return (
    <>
      <h1>PayOuts</h1>
      <p>
        A PayOut pays a recipient in fiat from your USDT: when it is created, its hold (the amount at the SELL rate plus your payout fee) moves from available
        to held; it is spent when the PayOut completes and returned if it fails or expires.
      </p>
      {balance.isPending && <Loading what="your balance" />}
      <ErrorText error={balance.error} />
      {wallet && (
        <p data-testid="available">
          Available now: <Money minor={wallet.available} currency="USDT" /> · held: <Money minor={wallet.frozen} currency="USDT" />
        </p>
      )}
      {!can('createPayout') ? (
        <p className="hint" data-testid="read-only">
          Your role may read PayOuts but not create them.
        </p>
      ) : (
        <>
          <SinglePayout walletId={wallet?.wallet_id} />
          <CsvPayouts walletId={wallet?.wallet_id} />
        </>
      )}
    </>
  );
}

function HoldLine({ q }: { q: Quote }) {
  const format = useFormatMoney();
  return (
    <span data-testid="hold" data-hold={q.hold_usdt_cents}>
      Hold <strong>{format(q.hold_usdt_cents, 'USDT')}</strong> = {format(q.amount_usdt_cents, 'USDT')} at {formatRate(q.rate_micro)} {q.currency}/USDT + fee{' '}
      {format(q.fee_usdt_cents, 'USDT')}
    </span>
  );
}

const formatRate = (micro: string) => {
  const digits = micro.padStart(7, '0');
  return `${digits.slice(0, -6)}.${digits.slice(-6)}`.replace(/0{1,4}$/, '');
};

function SinglePayout({ walletId }: { walletId?: string }) {
  const queryClient = useQueryClient();
  const currencies = useMerchantCurrencies().data?.data.filter((c) => c.code !== 'USDT') ?? [];
  const methods = usePaymentMethods().data?.data ?? [];
  const [currency, setCurrency] = useState('RUB');
  const [amount, setAmount] = useState('');
  const [method, setMethod] = useState('');
  const [requisite, setRequisite] = useState('');
  const [name, setName] = useState('');
  const [bank, setBank] = useState('');
  // One key per PayOut being written: a retry of the same form cannot make a second PayOut.
  const [key, setKey] = useState(() => crypto.randomUUID());
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [made, setMade] = useState<{ deal_id: string; status: string } | null>(null);
  const exponent = useExponent(currency);
  let minor: string | undefined;
  try {
    minor = exponent === undefined || amount.trim() === '' ? undefined : parseMajor(amount, exponent);
  } catch {
    minor = undefined;
  }
  const quoted = useQuery({ queryKey: ['payout-quote', minor, currency], queryFn: () => quote(minor!, currency), enabled: !!minor });
  const methodsOf = methods.filter((m) => m.currency_code === currency);
  // The method chosen, or the currency's first when the choice belongs to another currency.
  const chosenMethod = methodsOf.some((m) => m.slug === method) ? method : (methodsOf[0]?.slug ?? '');
  const format = useFormatMoney();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (!walletId) return setError(new ApiError(0, 'you have no USDT wallet yet: deposit USDT first'));
    if (!quoted.data) return setError(new ApiError(0, 'the hold is not known yet: enter a valid amount'));
    setAsking(true);
  };
  const send = async () => {
    setAsking(false);
    setBusy(true);
    try {
      const { deal } = await createPayout(walletId!, {
        amount: minor!,
        currency,
        payment_method: chosenMethod,
        target_requisite: requisite,
        target_name: name,
        target_bank: bank,
        idempotency_key: key,
      });
      setMade({ deal_id: deal.deal_id, status: deal.status });
      setKey(crypto.randomUUID());
      setAmount('');
      await queryClient.invalidateQueries();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="one-payout">
      <h2 id="one-payout">One PayOut</h2>
      <form onSubmit={submit} className="stack">
        <Field label="Currency">
          <select value={currency} onChange={(e) => setCurrency(e.target.value)}>
            {(currencies.length ? currencies : [{ code: 'RUB', name: 'RUB' }]).map((c) => (
              <option key={c.code} value={c.code}>
                {c.code}
              </option>
            ))}
          </select>
        </Field>
        <MoneyInput label="Amount" currency={currency} value={amount} onChange={setAmount} required />
        <Field label="Payment method">
          <select value={chosenMethod} onChange={(e) => setMethod(e.target.value)} required>
            {methodsOf.map((m) => (
              <option key={m.slug} value={m.slug}>
                {m.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Recipient’s card, phone or IBAN">
          <input value={requisite} onChange={(e) => setRequisite(e.target.value)} required autoComplete="off" />
        </Field>
        <Field label="Recipient’s name (optional)">
          <input value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" />
        </Field>
        <Field label="Recipient’s bank (optional)">
          <input value={bank} onChange={(e) => setBank(e.target.value)} autoComplete="off" />
        </Field>
        <p aria-live="polite">
          {quoted.data ? <HoldLine q={quoted.data} /> : quoted.error ? <ErrorText error={quoted.error} /> : minor ? 'Working out the hold…' : null}
        </p>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Creating the PayOut…' : 'Create PayOut…'}
        </button>
        {made && (
          <p role="status" className="done" data-testid="payout-made">
            PayOut <span className="mono">{made.deal_id.slice(0, 8)}</span> created: {made.status}
          </p>
        )}
        <ErrorText error={error} />
      </form>
      {asking && quoted.data && (
        <Confirm title="Create this PayOut" confirmLabel="Create the PayOut" onCancel={() => setAsking(false)} onConfirm={() => void send()}>
          <span data-testid="confirm-text">
            {format(minor, currency)} will be paid to <Text value={requisite} />
            {name ? (
              <>
                {' '}
                (<Text value={name} />)
              </>
            ) : null}
            . {format(quoted.data.hold_usdt_cents, 'USDT')} will move from your available balance to held now; it is spent when the PayOut completes and
            returned if it fails or expires. The rate is fixed when the PayOut is created.
          </span>
        </Confirm>
      )}
    </section>
  );
}

// ---- Many from a CSV file ----

const COLUMNS = ['amount', 'currency', 'payment_method', 'target_requisite', 'target_name', 'target_bank'] as const;

type Row = {
  line: number;
  input?: PayoutInput;
  /** Why the row cannot be sent, found before anything is sent. */
  problem?: string;
  quote?: Quote;
  result?: { kind: 'created' | 'replayed'; deal_id: string; status: string } | { kind: 'refused'; reason: string };
};

/** The row's key: a hash of the file's row (its line and cells), so the same file makes the same keys. */
async function rowKey(line: number, cells: string[]): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify([line, ...cells]));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return `csv-${Array.from(digest.slice(0, 16), (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function CsvPayouts({ walletId }: { walletId?: string }) {
  const queryClient = useQueryClient();
  const exponents = useMerchantCurrencies().data?.data;
  const format = useFormatMoney();
  const [rows, setRows] = useState<Row[] | null>(null);
  const [fileName, setFileName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [asking, setAsking] = useState(false);
  const [running, setRunning] = useState(false);

  const read = async (file: File) => {
    setError(null);
    setRows(null);
    setFileName(file.name);
    try {
      const text = await file.text();
      const records = parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Record<string, string>[];
      const missing = ['amount', 'currency', 'payment_method', 'target_requisite'].filter((c) => records.length > 0 && !(c in records[0]!));
      if (missing.length) throw new ApiError(0, `the file has no column ${missing.join(', ')}; its first line names the columns: ${COLUMNS.join(', ')}`);
      if (records.length > 500) throw new ApiError(0, `the file has ${records.length} rows; at most 500 at once`);
      const parsed: Row[] = await Promise.all(
        records.map(async (record, i) => {
          const line = i + 2;
          const cells = COLUMNS.map((c) => record[c] ?? '');
          const currency = (record.currency ?? '').toUpperCase();
          const exponent = exponents?.find((c) => c.code === currency)?.exponent;
          if (exponent === undefined) return { line, problem: `unknown currency “${record.currency ?? ''}”` };
          let amount: string;
          try {
            amount = parseMajor(record.amount ?? '', exponent, 'the amount');
          } catch (err) {
            return { line, problem: (err as Error).message };
          }
          if (!record.target_requisite) return { line, problem: 'target_requisite is empty' };
          const input: PayoutInput = {
            amount,
            currency,
            payment_method: record.payment_method ?? '',
            target_requisite: record.target_requisite,
            target_name: record.target_name,
            target_bank: record.target_bank,
            idempotency_key: await rowKey(line, cells),
          };
          return { line, input };
        }),
      );
      // Each row's hold, as the single form shows it (a quote refused is the row's problem).
      for (const row of parsed) {
        if (!row.input) continue;
        try {
          row.quote = await quote(row.input.amount, row.input.currency);
        } catch (err) {
          row.problem = (err as Error).message;
        }
      }
      setRows(parsed);
    } catch (err) {
      setError(err);
    }
  };

  const sendable = useMemo(() => (rows ?? []).filter((r) => r.input && !r.problem), [rows]);
  const totalHold = sendable.reduce((sum, r) => sum + BigInt(r.quote?.hold_usdt_cents ?? '0'), 0n).toString();

  const run = async () => {
    setAsking(false);
    if (!rows || !walletId) return;
    setRunning(true);
    const next = rows.map((r) => ({ ...r }));
    // One at a time: each hold is taken against what the one before left.
    for (const row of next) {
      if (!row.input || row.problem) continue;
      try {
        const { deal, replayed } = await createPayout(walletId, row.input);
        row.result = { kind: replayed ? 'replayed' : 'created', deal_id: deal.deal_id, status: deal.status };
      } catch (err) {
        row.result = { kind: 'refused', reason: (err as Error).message };
      }
      setRows(next.map((r) => ({ ...r })));
    }
    setRunning(false);
    await queryClient.invalidateQueries();
  };

  const done = rows?.some((r) => r.result);
  const counts = rows && {
    created: rows.filter((r) => r.result?.kind === 'created').length,
    replayed: rows.filter((r) => r.result?.kind === 'replayed').length,
    refused: rows.filter((r) => r.result?.kind === 'refused' || (r.problem && !r.result)).length,
  };
  return (
    <section aria-labelledby="csv-payouts">
      <h2 id="csv-payouts">Many PayOuts from a CSV file</h2>
      <p className="hint">
        The first line names the columns: <code className="address">{COLUMNS.join(', ')}</code> (amount in major units, e.g. 950.00). Each row’s idempotency key
        comes from the row itself, so uploading the same file again creates nothing new.
      </p>
      <Field label="CSV file">
        {/* A row's amount is read with its currency's exponent: the file waits for the catalogue. */}
        <input type="file" accept=".csv,text/csv" onChange={(e) => e.target.files?.[0] && void read(e.target.files[0])} disabled={running || !exponents} />
      </Field>
      <ErrorText error={error} />
      {rows && (
        <>
          <p data-testid="csv-summary">
            <Text value={fileName} />: {rows.length} rows, {sendable.length} to send, holding {format(totalHold, 'USDT')} in all.
            {counts && done && (
              <>
                {' '}
                Result: <span data-testid="count-created">{counts.created}</span> created, <span data-testid="count-replayed">{counts.replayed}</span> already
                created before, <span data-testid="count-refused">{counts.refused}</span> refused.
              </>
            )}
          </p>
          <DataTable
            caption="The file's PayOuts"
            columns={['Line', 'Amount', 'Recipient', 'Hold', 'Result']}
            rows={rows}
            rowKey={(r) => String(r.line)}
            row={(r) => (
              <tr data-testid={`csv-row-${r.line}`} data-result={r.result?.kind ?? (r.problem ? 'refused' : 'pending')}>
                <td>{r.line}</td>
                <td>{r.input ? <Money minor={r.input.amount} currency={r.input.currency} /> : '—'}</td>
                <td>{r.input ? <Text value={`${r.input.target_requisite}${r.input.target_name ? ` (${r.input.target_name})` : ''}`} /> : '—'}</td>
                <td>{r.quote ? format(r.quote.hold_usdt_cents, 'USDT') : '—'}</td>
                <td>
                  {r.result?.kind === 'created' && `created: ${r.result.status}`}
                  {r.result?.kind === 'replayed' && `already created by an earlier upload: ${r.result.status}`}
                  {r.result?.kind === 'refused' && <span className="error">refused: {r.result.reason}</span>}
                  {!r.result && r.problem && <span className="error">not sent: {r.problem}</span>}
                  {!r.result && !r.problem && (running ? 'waiting…' : 'to send')}
                </td>
              </tr>
            )}
          />
          {!done && (
            <button type="button" className="primary" disabled={running || sendable.length === 0 || !walletId} onClick={() => setAsking(true)}>
              Create {sendable.length} PayOuts…
            </button>
          )}
        </>
      )}
      {asking && (
        <Confirm
          title="Create the file's PayOuts"
          confirmLabel={`Create ${sendable.length} PayOuts`}
          onCancel={() => setAsking(false)}
          onConfirm={() => void run()}
        >
          <span data-testid="confirm-text">
            {sendable.length} PayOuts will be created one by one; together they move {format(totalHold, 'USDT')} from your available balance to held (each row’s
            hold is in the table). A row already created by an earlier upload of this file is not created again. Rows marked “not sent” are skipped.
          </span>
        </Confirm>
      )}
    </section>
  );
}
