/**
 * Who is signed in, and what the role may do. The role table is the server's: each operation's
 * `x-roles` in the OpenAPI document the API serves (domain/roles.ts is its source), read
 * once per page load — the console keeps no copy of it.
 */
import { useQuery } from '@tanstack/react-query';
import { api, ApiError, unwrap, type Schemas } from './api';
import { useDoorSession } from './door-session';
import type { operations } from '../../sdk/src/generated/openapi';
import { useMemberRole } from './cabinet/can';
import { CONSOLE_DOOR, DOOR } from './door';

export type OperationId = keyof operations;
export type Session = Schemas['OperatorSession'];

/** The operator signed in at the console (the cabinet's and the trader app's pages never ask the operators' door). */
export const useSession = () => useDoorSession<Session>(CONSOLE_DOOR, () => unwrap(api.GET('/api/v1/p2p/admin/session')), DOOR === 'console');

type RoleTable = Record<string, string[]>;

/** operationId → roles, from the served OpenAPI document's x-roles. */
export function useRoleTable() {
  return useQuery({
    queryKey: ['role-table'],
    queryFn: async (): Promise<RoleTable> => {
      const response = await fetch('/openapi.json', { credentials: 'same-origin' });
      if (!response.ok) throw new ApiError(response.status, 'the OpenAPI document could not be read');
      const document = (await response.json()) as { paths: Record<string, Record<string, { operationId?: string; 'x-roles'?: string[] }>> };
      const table: RoleTable = {};
      for (const item of Object.values(document.paths))
        for (const operation of Object.values(item)) if (operation.operationId && operation['x-roles']) table[operation.operationId] = operation['x-roles'];
      return table;
    },
    staleTime: Infinity,
  });
}

/** Whether the signed-in person's role — the operator's at the console, the member's at the cabinet — may call an operation (false until both are known). */
export function useCan(): (operationId: OperationId) => boolean {
  const operator = useSession().data?.operator.role;
  const member = useMemberRole(DOOR === 'cabinet');
  const role = DOOR === 'cabinet' ? member : operator;
  const table = useRoleTable().data;
  return (operationId) => !!role && !!table && (table[operationId] ?? []).includes(role);
}
