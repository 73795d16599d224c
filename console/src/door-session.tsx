/**
 * A door's session in the app, the same at every door (the console, the cabinet, the trader app):
 * who is signed in (its GET session, whose CSRF token every later change sends), signing out, and
 * the door's sections by path. Only the door's calls differ (door.ts).
 */
import type { ReactElement } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, setCsrfToken } from './api';
import type { AccountDoor } from './door';
import { Link, navigate } from './router';

/** The signed-in person of `door` (null: nobody; 401 no session, 403 another door's — sign in here). */
export function useDoorSession<T extends { csrf_token: string }>(door: AccountDoor, read: () => Promise<T>, enabled = true) {
  return useQuery({
    queryKey: door.sessionKey,
    queryFn: async (): Promise<T | null> => {
      try {
        const session = await read();
        setCsrfToken(session.csrf_token);
        return session;
      } catch (error) {
        if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return null;
        throw error;
      }
    },
    staleTime: 60_000,
    enabled,
  });
}

/** Signs out at `door`: the session ends, everything read under it is forgotten but what `keep` names, and the app starts over. */
export function useDoorSignOut(door: AccountDoor, end: () => Promise<unknown>, keep: readonly string[] = []) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: end,
    onSuccess: () => {
      setCsrfToken('');
      const kept = new Set([door.sessionKey[0], ...keep]);
      queryClient.removeQueries({ predicate: (query) => !kept.has(String(query.queryKey[0])) });
      queryClient.setQueryData(door.sessionKey, null);
      navigate('/', true);
    },
  });
}

/** A door's sections: path below the app's base, label, page (each page file owns its sub-routes). */
export type Sections = Array<[string, string, () => ReactElement]>;

/** The section a path belongs to (its first segment), or a page saying there is none. */
export function SectionPage({ sections, path }: { sections: Sections; path: string }) {
  const section = sections.find(([to]) => (to === '/' ? path === '/' : path === to || path.startsWith(`${to}/`)));
  if (!section) {
    return (
      <>
        <h1>Not found</h1>
        <p>
          There is no page here. <Link to="/">{sections[0]![1]}</Link>
        </p>
      </>
    );
  }
  const Page = section[2];
  return <Page />;
}
