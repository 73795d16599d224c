/**
 * The appeal's own workflow (issue 9), id `appeal:<appeal_id>`: it runs the appeal moves that do
 * not move a live deal — review, close, reopen, and opening or resolving while the deal is
 * terminal (EXPIRED: the settlement path; COMPLETED) — one at a time, each one activity
 * transaction checked against the table of domain/appeals.ts. Commands arrive by
 * Update-With-Start; a run ends after `idleSeconds` without commands and the next command starts
 * a new run of the same id, so the appeal's history is its list of runs in the Temporal UI.
 */
import { allHandlersFinished, condition, setHandler } from '@temporalio/workflow';
import { steps } from './activity-proxies';
import { appealCommandUpdate, type AppealCommand, type AppealWorkflowInput } from './contracts/appeal';
import type { AppealMoveResult } from './contracts/payin';
import { businessFailure } from './failures';
import { serialQueue } from './serial';

export async function appealWorkflow(input: AppealWorkflowInput): Promise<{ commands: number }> {
  const serial = serialQueue();
  let commands = 0;

  const run = (command: AppealCommand): Promise<AppealMoveResult> => {
    switch (command.kind) {
      case 'open':
        return steps.openAppeal(command.input, 'appeal');
      case 'resolve':
        return steps.resolveAppeal(command.input, 'appeal');
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
