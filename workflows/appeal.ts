/**
 * The appeal's own workflow, id `appeal:<appeal_id>`: it runs the appeal moves that do not move a
 * live deal — review, close, reopen, and opening or resolving while the deal is terminal (EXPIRED:
 * the settlement path; COMPLETED) — and the answers of the deal's trader, one at a time. Each command is decided here against the table
 * of domain/state/appeals.ts on the appeal and deal as they are (readAppealState), then carried out by
 * its step in one transaction. Commands arrive by Update-With-Start; a run ends after
 * `idleSeconds` without commands and the next command starts a new run of the same id, so the
 * appeal's history is its list of runs in the Temporal UI.
 */
import { allHandlersFinished, condition, setHandler } from '@temporalio/workflow';
import { appealCommandProblem, appealOpenRefusal, liveDealRefusal, resolveMove } from '../domain/state/appeals';
import { steps } from './activity-proxies';
import { type AppealCommand, type AppealState, type AppealWorkflowInput, appealCommandUpdate } from './contracts/appeal';
import type { AppealMoveResult } from './contracts/payin';
import { businessFailure, rejected } from './failures';
import { serialQueue } from './serial';

/** Why the command is refused (undefined: its step runs — a repeat of a committed command answers that command's result). */
function appealCommandRefusal(command: AppealCommand, { appeal, dealStatus }: AppealState): string | undefined {
  // No deal, no appeal: the step answers 404.
  if (dealStatus === undefined) return undefined;
  if (command.kind === 'open') {
    if (appeal?.id === command.input.appealId) return undefined;
    return appealOpenRefusal(dealStatus, appeal) ?? liveDealRefusal('open', dealStatus);
  }
  if (!appeal) return undefined;
  // The trader's answer moves no state of the table: its step judges the deadline under the appeal's lock.
  if (command.kind === 'trader_answer') return undefined;
  if (appeal.lastCommandId === (command.kind === 'resolve' ? command.input.commandId : command.commandId)) return undefined;
  const situation = { appealStatus: appeal.status, dealStatus, settled: appeal.settled, outcome: appeal.outcome };
  if (command.kind !== 'resolve') return appealCommandProblem(command.kind, situation);
  return appealCommandProblem(resolveMove(command.input.outcome), situation, command.input.outcome);
}

export async function appealWorkflow(input: AppealWorkflowInput): Promise<{ commands: number }> {
  const serial = serialQueue();
  let commands = 0;

  const run = (command: AppealCommand): Promise<AppealMoveResult> => {
    switch (command.kind) {
      case 'open':
        return steps.openAppeal(command.input, 'appeal');
      case 'resolve':
        return steps.resolveAppeal(command.input, 'appeal');
      case 'trader_answer':
        return steps.answerAppealAsTrader(command.input);
      default:
        return steps.moveAppeal({
          appealId: input.appealId,
          kind: command.kind,
          operatorId: command.operatorId,
          commandId: command.commandId,
          actor: command.actor,
        });
    }
  };

  setHandler(appealCommandUpdate, (command) => {
    commands += 1;
    return serial(async () => {
      try {
        const state = await steps.readAppealState(input.appealId, command.kind === 'open' ? command.input.dealId : undefined);
        const refusal = appealCommandRefusal(command, state);
        if (refusal) throw rejected('FAILED_PRECONDITION', refusal);
        return await run(command);
      } catch (error) {
        throw businessFailure(error);
      }
    });
  });

  // Serve commands until none came for idleSeconds (the first one arrives with the start).
  let seen = -1;
  while (seen !== commands) {
    seen = commands;
    await condition(allHandlersFinished);
    await condition(() => commands !== seen, input.idleSeconds * 1000);
  }
  await condition(allHandlersFinished);
  return { commands };
}
