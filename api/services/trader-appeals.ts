/**
 * The trader as a party of the appeals on its deals: it reads the merchant's statement and
 * evidence, and answers with its own statement and evidence files before its trader_respond_by.
 * Scope is the deal's trader: an appeal on another trader's deal is 404. The answer is a command
 * of the appeal's workflow (api/services/appeals.ts sendTraderAnswer), whose step decides the
 * deadline under the appeal's lock; the checks here are its read-only fast path.
 */
import type { AppDeps } from '../deps';
import type { AuditActor } from '../../domain/audit';
import { Conflict, InvalidArgument, NotFound } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { traderAnswerRefusal, traderAnswerState } from '../../domain/state/appeals';
import { databaseNow, findTraderAppeal, listTraderAppeals, messagesOf, type MessageRow, type TraderAppealRow } from '../../db/queries/appeals';
import { deleteUnattachedTraderFile, filesByIds, findFileForTraderAppeal } from '../../db/queries/files';
import { presentMessage } from '../../db/queries/appeal-messages';
import { sendTraderAnswer } from './appeals';
import { parseMultipart, presentFile, requireOwnFiles, storageOf, storeFile } from './files';

/** The roles whose messages the trader reads: the merchant's statements and its own answers. */
const TRADER_THREAD_ROLES = ['MERCHANT', 'TRADER'] as const;
const TRADER_APPEALS_LIMIT = 200;
/** The caption of an evidence file (the multipart field `note`), at most this long. */
const NOTE_MAX = 4000;

export interface TraderScope {
  traderId: string;
}

function presentTraderAppeal(row: TraderAppealRow, now: Date) {
  return {
    appeal_id: row.id,
    deal_id: row.deal_id,
    status: row.status,
    deal_status: row.deal_status,
    amount: row.amount.toString(),
    currency: row.currency,
    reason: row.reason,
    created_at: row.created_at.toISOString(),
    respond_by: row.trader_respond_by.toISOString(),
    responded_at: row.trader_responded_at?.toISOString() ?? '',
    answer: traderAnswerState(row, now),
    can_answer: traderAnswerRefusal(row, now) === undefined,
  };
}

/** The appeals on the trader's deals: the ones still waiting for the arbiter first, the earliest deadline first. */
export async function traderAppeals(deps: AppDeps, scope: TraderScope) {
  const [rows, now] = await Promise.all([listTraderAppeals(deps.sql, scope.traderId, TRADER_APPEALS_LIMIT), databaseNow(deps.sql)]);
  return rows.map((r) => presentTraderAppeal(r, now));
}

async function ownAppeal(deps: AppDeps, scope: TraderScope, appealId: string): Promise<TraderAppealRow> {
  const row = await findTraderAppeal(deps.sql, scope.traderId, appealId);
  if (!row) throw new NotFound('appeal not found');
  return row;
}

const presentTraderMessage = (m: MessageRow) => {
  const { sender_role, ...rest } = presentMessage(m);
  return { ...rest, sender_role: sender_role as (typeof TRADER_THREAD_ROLES)[number] };
};

/** One appeal as its trader reads it: the merchant's statement and files, its own answers, its deadline. */
export async function traderAppeal(deps: AppDeps, scope: TraderScope, appealId: string) {
  const row = await ownAppeal(deps, scope, appealId);
  const [messages, now] = await Promise.all([messagesOf(deps.sql, row.id, TRADER_THREAD_ROLES), databaseNow(deps.sql)]);
  const files = await filesByIds(deps.sql, [...new Set([...row.file_ids, ...messages.flatMap((m) => m.file_ids)])]);
  return {
    ...presentTraderAppeal(row, now),
    file_ids: row.file_ids,
    messages: messages.map(presentTraderMessage),
    files: files.map((f) => ({ ...presentFile(f), party: f.trader_id === scope.traderId ? ('TRADER' as const) : ('MERCHANT' as const) })),
  };
}

/** Refuses (409) an answer the step would refuse, before anything is stored. */
async function mayAnswer(deps: AppDeps, row: TraderAppealRow) {
  const refused = traderAnswerRefusal(row, await databaseNow(deps.sql));
  if (refused) throw new Conflict(refused);
}

async function answer(deps: AppDeps, scope: TraderScope, row: TraderAppealRow, body: string, fileIds: string[], actor: AuditActor) {
  const messageId = newId();
  await sendTraderAnswer(deps, row, { appealId: row.id, traderId: scope.traderId, messageId, body, fileIds, actor });
  const [message] = (await messagesOf(deps.sql, row.id, ['TRADER'])).filter((m) => m.id === messageId);
  return presentTraderMessage(message!);
}

/** The trader's statement (with its own earlier uploads as file_ids): one TRADER message. */
export async function answerWithStatement(deps: AppDeps, scope: TraderScope, appealId: string, body: { body: string; file_ids?: string[] }, actor: AuditActor) {
  const row = await ownAppeal(deps, scope, appealId);
  await mayAnswer(deps, row);
  const fileIds = await requireOwnFiles(deps, { kind: 'trader', traderId: scope.traderId }, body.file_ids ?? []);
  return answer(deps, scope, row, body.body, fileIds, actor);
}

/**
 * An evidence file from the trader (multipart/form-data: the file in `file`, an optional caption
 * in `note`): stored through the evidence pipeline, then sent as a TRADER message carrying it. A
 * file whose answer is then refused (the deadline passed meanwhile) is taken back.
 */
export async function answerWithEvidence(deps: AppDeps, scope: TraderScope, appealId: string, raw: unknown, contentType: string, actor: AuditActor) {
  const row = await ownAppeal(deps, scope, appealId);
  await mayAnswer(deps, row);
  if (!/^multipart\/form-data\b/i.test(contentType) || !Buffer.isBuffer(raw)) {
    throw new InvalidArgument('the file must be sent as multipart/form-data in the part named "file"', [
      { field: 'file', message: 'multipart/form-data expected', code: 'invalid_file' },
    ]);
  }
  const { fields, file } = await parseMultipart(raw, contentType, deps.config.EVIDENCE_MAX_BYTES, 'file');
  if (!file) throw new InvalidArgument('no file: send it in the part named "file"', [{ field: 'file', message: 'no file', code: 'invalid_file' }]);
  const note = (fields.note ?? '').trim();
  if (note.length > NOTE_MAX) throw new InvalidArgument(`note is at most ${NOTE_MAX} characters`, [{ field: 'note', message: 'too long', code: 'too_big' }]);
  const stored = await storeFile(deps, { kind: 'trader', traderId: scope.traderId }, file.bytes, file.fileName, actor);
  try {
    return { file: presentFile(stored), message: await answer(deps, scope, row, note, [stored.id], actor) };
  } catch (error) {
    if (await deleteUnattachedTraderFile(deps.sql, scope.traderId, stored.id)) await storageOf(deps).delete(stored.id);
    throw error;
  }
}

/** A file of the trader's appeal: the merchant's statement's and messages' files, and its own. Anything else is 404. */
export async function traderAppealFile(deps: AppDeps, scope: TraderScope, appealId: string, fileId: string) {
  const row = await ownAppeal(deps, scope, appealId);
  const file = await findFileForTraderAppeal(deps.sql, row.id, fileId);
  if (!file) throw new NotFound('file not found');
  const bytes = await storageOf(deps).get(file.id);
  if (!bytes) throw new NotFound('file not found');
  return { row: file, bytes };
}
