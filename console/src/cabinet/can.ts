/**
 * The member's role at the cabinet's door, for the role table (session.tsx useCan reads it there):
 * the cabinet session the shell loaded (Cabinet.tsx, CABINET_DOOR.sessionKey). The pages render
 * only below the shell once it is loaded, and again whenever it changes, so they read it from the
 * query cache — no second query, whose fetch function could stand in for the shell's.
 */
import { useQueryClient } from '@tanstack/react-query';
import type { Schemas } from '../api';
import { CABINET_DOOR } from '../door';
import { useRoleTable, type OperationId } from '../session';

export function useMemberRole(enabled: boolean): string | undefined {
  const session = useQueryClient().getQueryData<Schemas['CabinetSession'] | null>(CABINET_DOOR.sessionKey);
  return enabled ? (session?.member.role ?? undefined) : undefined;
}

/** Whether the member's role may call an operation (false until both are known): the server's role table, each operation's x-roles. */
export function useMemberCan(): (operationId: OperationId) => boolean {
  const role = useMemberRole(true);
  const table = useRoleTable().data;
  return (operationId) => !!role && !!table && (table[operationId] ?? []).includes(role);
}
