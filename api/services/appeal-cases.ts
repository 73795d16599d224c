/**
 * An appeal as the desk's case: its response deadline (respond_by, set by the open and reopen
 * steps from APPEAL_RESPONSE_SLA_SECONDS), who works on it (an operator account: assign,
 * unassign, take) and the files operators attach to it. None of these moves the appeal's state,
 * so they are not the appeal workflow's: each is one transaction under the appeal's row lock with
 * its audit row. The state moves stay in api/services/appeals.ts.
 */
import type { AppDeps } from '../deps';
import type { AuditActor } from '../../domain/audit';
import { FailedPrecondition, InvalidArgument, NotFound, PermissionDenied } from '../../domain/errors';
import { APPEAL_ACTIVE } from '../../domain/state/appeals';
import { isOperatorRole, operatorMayCall } from '../../domain/roles';
import { insertAudit } from '../../db/queries/audit';
import { attachmentsOf, insertAttachments, lockAppeal, setAppealAssignee, type AppealRow, type AttachmentRow } from '../../db/queries/appeals';
import { accountNames, findOperator, listOperators, type OperatorRow } from '../../db/queries/accounts';
import { requireOwnFiles } from './files';

/** Who may work on an appeal: an enabled console account whose role may resolve one (the role table's). */
const mayWorkOnAppeals = (o: Pick<OperatorRow, 'role' | 'disabled_at'>) =>
  o.disabled_at === null && isOperatorRole(o.role) && operatorMayCall('adminResolveAppeal', o.role);

/** The case fields of an appeal as the operator API shows them. */
export function presentCase(row: AppealRow, nowMs: number) {
  return {
    respond_by: row.respond_by.toISOString(),
    overdue: APPEAL_ACTIVE.includes(row.status) && row.respond_by.getTime() < nowMs,
    assignee_id: row.assignee_id ?? '',
    assigned_at: row.assigned_at?.toISOString() ?? '',
  };
}

const presentAttachment = (a: AttachmentRow, names: Map<string, { email: string }>) => ({
  file_id: a.file_id,
  note: a.note,
  attached_by: a.attached_by,
  attached_by_name: nameOfActor(a.attached_by, names),
  created_at: a.created_at.toISOString(),
});

const ACCOUNT = 'operator_account:';
const JWT = 'operator_jwt:';
/** A console account by its email; the operator JWT by its subject, as the audit log names it. */
function nameOfActor(actor: string, names: Map<string, { email: string }>): string {
  if (actor.startsWith(ACCOUNT)) return names.get(actor.slice(ACCOUNT.length))?.email ?? actor;
  if (actor.startsWith(JWT)) return `operator JWT (${actor.slice(JWT.length)})`;
  return actor;
}

export async function appealAttachments(deps: AppDeps, appealId: string) {
  const rows = await attachmentsOf(deps.sql, appealId);
  const names = await accountNames(
    deps.sql,
    rows.filter((a) => a.attached_by.startsWith(ACCOUNT)).map((a) => a.attached_by.slice(ACCOUNT.length)),
  );
  return rows.map((a) => presentAttachment(a, names));
}

/** The accounts an appeal may be assigned to, by email. */
export async function appealAssignees(deps: AppDeps) {
  return (await listOperators(deps.sql))
    .filter(mayWorkOnAppeals)
    .map((o) => ({ operator_id: o.id, email: o.email, role: o.role }))
    .sort((a, b) => a.email.localeCompare(b.email));
}

const caseView = (row: AppealRow) => ({ assignee_id: row.assignee_id ?? '', assigned_at: row.assigned_at?.toISOString() ?? '' });

/**
 * Sets the appeal's assignee (null: nobody) under its row lock, with its audit row
 * (`appeal.assign` or `appeal.unassign`). The same assignee again changes nothing and writes no
 * row. The assignee must be an enabled account whose role may resolve appeals.
 */
export async function setAssignee(deps: AppDeps, appealId: string, assigneeId: string | null, actor: AuditActor): Promise<AppealRow> {
  if (assigneeId !== null) {
    const assignee = await findOperator(deps.sql, assigneeId);
    if (!assignee)
      throw new InvalidArgument('no operator account has this id', [{ field: 'operator_id', message: 'unknown operator', code: 'invalid_reference' }]);
    if (!mayWorkOnAppeals(assignee)) {
      throw new FailedPrecondition(`${assignee.email} may not work on appeals (a disabled account, or a role that may not resolve them)`);
    }
  }
  return deps.sql.begin(async (tx) => {
    const before = await lockAppeal(tx, appealId);
    if (!before) throw new NotFound('appeal not found');
    if (before.assignee_id === assigneeId) return before;
    const after = await setAppealAssignee(tx, appealId, assigneeId);
    await insertAudit(tx, actor, {
      action: assigneeId === null ? 'appeal.unassign' : 'appeal.assign',
      objectType: 'appeal',
      objectId: appealId,
      before: caseView(before),
      after: caseView(after),
    });
    return after;
  });
}

/** "I take it": the acting console account becomes the assignee. The operator JWT names no account. */
export function takeAppeal(deps: AppDeps, appealId: string, acting: { operatorId: string; via: 'jwt' | 'session' }, actor: AuditActor) {
  if (acting.via !== 'session') throw new PermissionDenied('an appeal is taken by a console account; the operator JWT has none (assign it to an account)');
  return setAssignee(deps, appealId, acting.operatorId, actor);
}

/**
 * Attaches operator uploads (POST /admin/files) to the appeal as the case's papers, with a note,
 * audited (`appeal.attach`) with the attachment rows. A file attached already stays as it was.
 */
export async function attachFiles(deps: AppDeps, appealId: string, body: { file_ids: string[]; note?: string | undefined }, actor: AuditActor) {
  const fileIds = await requireOwnFiles(deps, { kind: 'operator', operatorId: actor.id }, body.file_ids);
  await deps.sql.begin(async (tx) => {
    const appeal = await lockAppeal(tx, appealId);
    if (!appeal) throw new NotFound('appeal not found');
    const written = await insertAttachments(tx, appealId, fileIds, (body.note ?? '').trim(), `${actor.kind}:${actor.id}`);
    if (written.length > 0) {
      await insertAudit(tx, actor, {
        action: 'appeal.attach',
        objectType: 'appeal',
        objectId: appealId,
        after: { attachments: written.map((a) => ({ file_id: a.file_id, note: a.note, attached_by: a.attached_by, created_at: a.created_at.toISOString() })) },
      });
    }
  });
  return appealAttachments(deps, appealId);
}
