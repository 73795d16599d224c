import { useState } from 'react';
import { api, unwrap, type Schemas } from '../api';
import { PagedTable, usePagedList } from '../list';
import { FilterBar, useUrlFilters, type FilterSpec } from '../filters';
import { ExportCsv, IdLink, Named } from '../names';
import { Link } from '../router';
import { approverAccountId, WITHDRAWAL_STATUSES, WITHDRAWAL_TRANSITIONS, type WithdrawalStatus } from '../../../domain/state/withdrawals';
import { Text } from '../text';
import { useCan, useSession } from '../session';
import { BulkResults, SelectBox, useSelection, type BulkResult } from '../bulk';
import { POLL_MS } from '../notifications';
import { Action, Field, money, StatusAfter, when } from '../ui';

const FILTERS: FilterSpec[] = [
  {
    key: 'status',
    label: 'Status',
    kind: 'select',
    options: WITHDRAWAL_STATUSES,
    optionLabel: (s) => (s === 'PENDING_MANUAL' ? 'PENDING_MANUAL (awaiting approval)' : s),
  },
  { key: 'merchant_id', label: 'Merchant id', kind: 'text', placeholder: 'whole or first 8 characters' },
];

export function Withdrawals() {
  // The queue opens on what waits for an operator; "any" is kept in the URL as an empty status.
  const filters = useUrlFilters({ status: 'PENDING_MANUAL' });
  const status = filters.get('status') as WithdrawalStatus | '';
  // A link to one withdrawal (from the audit log, the search) opens the queue filtered to it, any status.
  const withdrawalId = filters.get('withdrawal_id');
  const query = {
    ...(status ? { status: [status] } : {}),
    merchant_id: filters.get('merchant_id') || undefined,
    ...(withdrawalId ? { withdrawal_id: withdrawalId } : {}),
  };
  const withdrawals = usePagedList(
    ['withdrawals', query],
    (page_token) => unwrap(api.GET('/api/v1/p2p/admin/withdrawals', { params: { query: { page_size: 25, page_token, ...query } } })),
    // Other operators approve meanwhile: the approvals shown are read again.
    { refetchInterval: POLL_MS },
  );
  const waiting = (withdrawals.list.data?.data ?? []).filter((w) => w.status === 'PENDING_MANUAL').map((w) => w.withdrawal_id);
  const selection = useSelection(waiting);
  return (
    <>
      <h1>Withdrawals</h1>
      <p className="muted">
        Above the four-eyes amount a withdrawal needs two approvals by two different console accounts (the operator JWT cannot approve it); the first approver
        cannot give the second, and an approver disabled since no longer counts.
      </p>
      <FilterBar label="Filter withdrawals" specs={FILTERS} filters={filters} view="withdrawals" />
      <div className="list-actions">
        {withdrawalId && (
          <span>
            Only withdrawal <span className="mono">{withdrawalId.slice(0, 8)}</span> <Link to="/withdrawals">Show all</Link>
          </span>
        )}
        <ExportCsv op="adminExportWithdrawals" path="/withdrawals/export" query={query} />
      </div>
      <BulkBar selection={selection} />
      <PagedTable
        paged={withdrawals}
        what="withdrawals"
        caption="Withdrawals, newest first"
        columns={['Select', 'Withdrawal', 'Owner', 'Amount (USDT)', 'Address', 'Status', 'Approvals', 'Created', 'Actions']}
        rowKey={(w) => w.withdrawal_id}
        row={(w) => <WithdrawalRow w={w} selection={selection} />}
        empty="No withdrawals."
      />
    </>
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Who approved or cancelled: a console account by its email (the API's name for it), linked with
 * its id on hover; an operator JWT's subject or the gateway as the API names them.
 */
function Person({ who, name }: { who: string; name: string }) {
  const account = approverAccountId(who) ?? (UUID.test(who) ? who : undefined);
  return account && name !== who ? <Named kind="operator" id={account} name={name} /> : <Text value={name} />;
}

/** Approve or cancel the selected withdrawals: the single action once each (four-eyes per withdrawal), each answer listed. */
function BulkBar({ selection }: { selection: ReturnType<typeof useSelection> }) {
  const [results, setResults] = useState<BulkResult[] | undefined>();
  const [reason, setReason] = useState('');
  const can = useCan();
  if (!can('adminBulkApproveWithdrawals') && !can('adminBulkCancelWithdrawals')) return null;
  const n = selection.ids.length;
  const done = (answer: { results: BulkResult[] }) => {
    setResults(answer.results);
    selection.clear();
  };
  return (
    <section className="bulk" aria-label="Selected withdrawals">
      <p>
        <strong data-testid="selected-count">{n}</strong> selected{' '}
        <button type="button" onClick={() => selection.setAll(true)}>
          Select all waiting on this page
        </button>{' '}
        <button type="button" onClick={() => selection.setAll(false)} disabled={n === 0}>
          Clear
        </button>
      </p>
      <div className="actions">
        <Action
          op="adminBulkApproveWithdrawals"
          label="Approve selected"
          className="primary"
          disabled={n === 0}
          confirm={{
            title: `Approve ${n} withdrawal${n === 1 ? '' : 's'}?`,
            text: 'Each gets your approval, as if you approved it alone. One above the four-eyes amount records only your approval and waits for a second operator; the others are sent on chain. One you approved already is refused, and so is one no longer waiting.',
            label: 'Approve each',
          }}
          run={() => unwrap(api.POST('/api/v1/p2p/admin/withdrawals/bulk-approve', { body: { withdrawal_ids: selection.ids } }))}
          onDone={done}
        />
        <Field label="Cancel reason (for all selected)">
          <input value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} />
        </Field>
        <Action
          op="adminBulkCancelWithdrawals"
          label="Cancel selected"
          disabled={n === 0}
          confirm={{
            title: `Cancel ${n} withdrawal${n === 1 ? '' : 's'}?`,
            text: 'Each is cancelled and its amount returns to its merchant’s balance. One approved meanwhile is refused.',
            label: 'Cancel each',
          }}
          run={() => unwrap(api.POST('/api/v1/p2p/admin/withdrawals/bulk-cancel', { body: { withdrawal_ids: selection.ids, ...(reason ? { reason } : {}) } }))}
          onDone={done}
        />
      </div>
      <BulkResults
        results={results}
        names={{ released: 'approved and sent', approval_recorded: 'approved, awaiting a second approval', cancelled: 'cancelled' }}
      />
    </section>
  );
}

function WithdrawalRow({ w, selection }: { w: Schemas['OperatorWithdrawal']; selection: ReturnType<typeof useSelection> }) {
  const session = useSession().data!;
  const me = `operator_account:${session.operator.operator_id}`;
  const approvals = w.approvals ?? [];
  const required = w.approvals_required ?? 1;
  const iApproved = approvals.some((a) => a.approver === me);
  // Above the four-eyes amount only an enabled console account of an approving role counts (judged again at the release).
  const counting = required > 1 ? approvals.filter((a) => a.counts).length : approvals.length;
  const path = { params: { path: { withdrawal_id: w.withdrawal_id } } };
  const [reason, setReason] = useState('');
  return (
    <tr data-withdrawal={w.withdrawal_id}>
      <td>
        {w.status === 'PENDING_MANUAL' && (
          <SelectBox
            label={`Select withdrawal ${w.withdrawal_id.slice(0, 8)} of ${w.owner_name}`}
            checked={selection.has(w.withdrawal_id)}
            onChange={() => selection.toggle(w.withdrawal_id)}
          />
        )}
      </td>
      <td>
        <IdLink kind="withdrawal" id={w.withdrawal_id} />
      </td>
      <td>
        {/* A merchant's or a trader's USDT: the owner's name, and which of the two it is for a trader. */}
        <Named kind={w.owner_type} id={w.owner_id} name={w.owner_name} />
        {w.owner_type === 'trader' && <div className="muted">trader</div>}
      </td>
      <td className="num">{money(w.amount)}</td>
      <td className="mono">{w.address}</td>
      <td>
        <span className="badge">{w.status}</span>
        {w.tx_hash && (
          <div className="tx" data-testid="tx-hash">
            Transaction <span className="mono">{w.tx_hash}</span>
          </div>
        )}
        {w.approved_by_name && (
          <div className="muted">
            approved by <Person who={w.approved_by} name={w.approved_by_name} />
          </div>
        )}
        {w.cancelled_by_name && (
          <div className="muted">
            cancelled by <Person who={w.cancelled_by} name={w.cancelled_by_name} />
            {w.cancel_reason && (
              <>
                : <Text value={w.cancel_reason} />
              </>
            )}
          </div>
        )}
      </td>
      <td data-testid="approvals">
        {counting} of {required}
        {approvals.map((a) => (
          <div key={a.approver} className="muted">
            <Person who={a.approver} name={a.approver_name} /> ({a.role}) {when(a.at)}
            {!a.counts && required > 1 && ' — no longer counts (disabled, role changed, or not a console account)'}
          </div>
        ))}
      </td>
      <td>{when(w.created_at)}</td>
      <td>
        {w.status === 'PENDING_MANUAL' && (
          <div className="actions">
            {iApproved ? (
              <p className="muted">You approved; a second operator must approve.</p>
            ) : (
              <Action
                op="adminApproveWithdrawal"
                label={counting > 0 ? 'Give second approval' : 'Approve'}
                className="primary"
                confirm={{
                  title: 'Approve this withdrawal?',
                  text:
                    required > counting + 1 ? (
                      <>
                        <p>
                          {money(w.amount)} USDT to <span className="mono">{w.address}</span>. This is approval {counting + 1} of {required}; another operator
                          must approve too.
                        </p>
                        <p>
                          <StatusAfter subject="The withdrawal" now={w.status} after={w.status} kind="withdrawal" />.
                        </p>
                      </>
                    ) : (
                      <>
                        <p>
                          {money(w.amount)} USDT to <span className="mono">{w.address}</span> is sent on chain.
                        </p>
                        <p>
                          <StatusAfter subject="The withdrawal" now={w.status} after={WITHDRAWAL_TRANSITIONS.approve.to!} kind="withdrawal" />, then{' '}
                          {WITHDRAWAL_TRANSITIONS.broadcast_sent.to} once the transfer is sent.
                        </p>
                        <p className="muted">Money: {WITHDRAWAL_TRANSITIONS.broadcast_sent.money}.</p>
                      </>
                    ),
                  label: 'Approve',
                }}
                run={() => unwrap(api.POST('/api/v1/p2p/admin/withdrawals/{withdrawal_id}/approve', path))}
              />
            )}
            <Field label="Cancel reason">
              <input value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} />
            </Field>
            <Action
              op="adminCancelWithdrawal"
              label="Cancel withdrawal"
              confirm={{
                title: 'Cancel this withdrawal?',
                text: (
                  <>
                    <p>
                      <StatusAfter subject="The withdrawal" now={w.status} after={WITHDRAWAL_TRANSITIONS.cancel.to!} kind="withdrawal" />; the amount returns to
                      the merchant’s balance.
                    </p>
                    <p className="muted">Money: {WITHDRAWAL_TRANSITIONS.cancel.money}.</p>
                  </>
                ),
                label: 'Cancel withdrawal',
                tone: 'danger',
              }}
              run={() => unwrap(api.POST('/api/v1/p2p/admin/withdrawals/{withdrawal_id}/cancel', { ...path, body: reason ? { reason } : {} }))}
            />
          </div>
        )}
      </td>
    </tr>
  );
}
