/**
 * The appeal workflow's wire protocol. Appeal moves that do not move a live deal —
 * review, close, reopen, and open / resolve while the deal is terminal — run here, one run per
 * burst of commands (id `appeal:<appeal_id>`, started by Update-With-Start). Moves of a live
 * (APPEALED) deal run in the deal's own workflow (contracts/payin.ts).
 */
import type { SearchAttributePair } from '@temporalio/common';
import { defineUpdate } from '@temporalio/workflow';
import type { AppealMoveResult, OpenAppealInput, ResolveAppealInput } from './payin';
import type { AppealOutcome, AppealStatus } from '../../domain/state/appeals';
import type { AuditActor } from '../../domain/audit';
import { AppealIdKey, DealIdKey, MerchantIdKey } from './search-attributes';
import { dealsTaskQueue } from './task-queues';

export const appealWorkflowType = 'appealWorkflow';
export type AppealWorkflow = (input: AppealWorkflowInput) => Promise<{ commands: number }>;
export const appealTaskQueue = dealsTaskQueue;
export const appealWorkflowId = (appealId: string) => `appeal:${appealId}`;
export const appealSearchAttributes = (appeal: { merchantId: string; dealId: string; appealId: string }): SearchAttributePair[] => [
  { key: MerchantIdKey, value: appeal.merchantId },
  { key: DealIdKey, value: appeal.dealId },
  { key: AppealIdKey, value: appeal.appealId },
];

export interface AppealWorkflowInput {
  appealId: string;
  /** A run ends after this long without commands; the next command starts a new run. */
  idleSeconds: number;
}

export type AppealCommand =
  | { kind: 'open'; input: OpenAppealInput }
  | { kind: 'resolve'; input: ResolveAppealInput }
  | { kind: 'trader_answer'; input: TraderAnswerInput }
  | {
      kind: 'review' | 'close' | 'reopen';
      appealId: string;
      operatorId: string;
      commandId: string;
      /** Who sent it: the step writes its audit row in the move's transaction. */
      actor: AuditActor;
    };

/**
 * The trader of the appealed deal answers: a statement and/or its evidence files, one message of
 * the thread (sender_role TRADER). The answerAppealAsTrader step checks the deadline under the
 * appeal's lock; the message id makes a retried step answer the stored message. It answers the
 * appeal and its deal as every appeal step does; the API reads the message back by its id.
 */
export interface TraderAnswerInput {
  appealId: string;
  traderId: string;
  messageId: string;
  body: string;
  fileIds: string[];
  /** The trader account that answered: the step audits the answer with it. */
  actor: AuditActor;
}

/** The moveAppeal step's input: review, close or reopen of this appeal. */
export interface AppealMoveInput {
  appealId: string;
  kind: 'review' | 'close' | 'reopen';
  operatorId: string;
  commandId: string;
  actor: AuditActor;
}

/**
 * What the appeal workflow decides a command on, read by the readAppealState step without locks
 * (the move's step checks again under them).
 */
export interface AppealState {
  /** The deal's status; absent when there is no such deal (the move's step answers 404). */
  dealStatus?: string;
  /** The appeal: by its id, or for an open the deal's appeal if it has one. */
  appeal?: { id: string; status: AppealStatus; outcome: AppealOutcome | null; lastCommandId: string | null; settled: boolean };
}

export const appealCommandUpdate = defineUpdate<AppealMoveResult, [AppealCommand]>('appealCommand');
