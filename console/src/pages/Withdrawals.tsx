import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api';
import { useSession } from '../session';
import { Action, ErrorText, Field, Loading, money, Pager, usePages, when } from '../ui';

const STATUSES = ['PENDING_MANUAL', 'PENDING', 'APPROVED', 'COMPLETED', 'CANCELLED', ''] as const;
type Status = Exclude<(typeof STATUSES)[number], ''>;

export function Withdrawals() {
  const [status, setStatus] = useState<Status | ''>('PENDING_MANUAL');
  const [merchant, setMerchant] = useState('');
  const pages = usePages(status + merchant);
  const list = useQuery({
    queryKey: ['withdrawals', status, merchant, pages.token],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/p2p/admin/withdrawals', {
          params: { query: { page_size: 25, page_token: pages.token, ...(status ? { status: [status] } : {}), ...(merchant ? { merchant_id: merchant } : {}) } },
        }),
      ),
  });
  return (
    <>
      <h1>Withdrawals</h1>
      <p className="muted">
        Above the four-eyes amount a withdrawal needs two approvals by two different operators; the first approver cannot give the second.
      </p>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter withdrawals">
        <Field label="Status">
          <select value={status} onChange={(e) => setStatus(e.target.value as Status | '')}>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s === 'PENDING_MANUAL' ? 'PENDING_MANUAL (awaiting approval)' : s || 'any'}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Merchant id">
          <input value={merchant} onChange={(e) => setMerchant(e.target.value.trim())} />
        </Field>
      </form>
      <ErrorText error={list.error} />
      {list.isPending ? (
        <Loading what="withdrawals" />
      ) : (
        list.data && (
          <>
            <table>
              <caption className="sr-only">Withdrawals, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Withdrawal</th>
                  <th scope="col">Merchant</th>
                  <th scope="col">Amount (USDT)</th>
                  <th scope="col">Address</th>
                  <th scope="col">Status</th>
                  <th scope="col">Approvals</th>
                  <th scope="col">Created</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.data.data.map((w) => (
                  <WithdrawalRow key={w.withdrawal_id} w={w} />
                ))}
                {list.data.data.length === 0 && (
                  <tr>
                    <td colSpan={8}>No withdrawals.</td>
                  </tr>
                )}
              </tbody>
            </table>
            <Pager pages={pages} nextToken={list.data.next_page_token} />
          </>
        )
      )}
    </>
  );
}

function WithdrawalRow({ w }: { w: Schemas['OperatorWithdrawal'] }) {
  const session = useSession().data!;
  const me = `operator_account:${session.operator.operator_id}`;
  const approvals = w.approvals ?? [];
  const required = w.approvals_required ?? 1;
  const iApproved = approvals.some((a) => a.approver === me);
  const path = { params: { path: { withdrawal_id: w.withdrawal_id } } };
  const [reason, setReason] = useState('');
  return (
    <tr data-withdrawal={w.withdrawal_id}>
      <td className="mono">{w.withdrawal_id.slice(0, 8)}</td>
      <td className="mono">{w.merchant_id?.slice(0, 8)}</td>
      <td className="num">{money(w.amount)}</td>
      <td className="mono">{w.address}</td>
      <td>
        <span className="badge">{w.status}</span>
      </td>
      <td data-testid="approvals">
        {approvals.length} of {required}
        {approvals.map((a) => (
          <div key={a.approver} className="muted">
            {a.approver.split(':')[1]?.slice(0, 8)} ({a.role}) {when(a.at)}
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
                label={approvals.length > 0 ? 'Give second approval' : 'Approve'}
                className="primary"
                confirm={{
                  title: 'Approve this withdrawal?',
                  text:
                    required > approvals.length + 1
                      ? `${money(w.amount)} USDT to ${w.address}. This is the first of ${required} approvals; another operator must approve too.`
                      : `${money(w.amount)} USDT to ${w.address} is sent on chain.`,
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
              confirm={{ title: 'Cancel this withdrawal?', text: 'The amount returns to the merchant’s balance.', label: 'Cancel withdrawal' }}
              run={() => unwrap(api.POST('/api/v1/p2p/admin/withdrawals/{withdrawal_id}/cancel', { ...path, body: reason ? { reason } : {} }))}
            />
          </div>
        )}
      </td>
    </tr>
  );
}
