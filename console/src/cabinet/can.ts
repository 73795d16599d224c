/**
 * What the signed-in member's role may call: the server's role table (each operation's x-roles in
 * /openapi.json, useRoleTable) against the cabinet session's role — the cabinet's useCan.
 */
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api';
import { CABINET_DOOR } from '../door';
import { useRoleTable, type OperationId } from '../session';

/** Whether the member's role may call an operation (false until both are known). */
export function useMemberCan(): (operationId: OperationId) => boolean {
  // The shell's session query (Cabinet.tsx), read from the cache: it is loaded before any page shows.
  const session = useQuery({ queryKey: CABINET_DOOR.sessionKey, queryFn: () => unwrap(api.GET('/api/v1/p2p/cabinet/session')), enabled: false }).data;
  const table = useRoleTable().data;
  return (operationId) => !!session && !!table && (table[operationId] ?? []).includes(session.member.role);
}
