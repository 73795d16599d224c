/** Pass steps: the expiry its workflow runs at expires_at. */
import type { ActivityDeps } from './deps';
import { expirePass } from '../db/queries/passes';

export function createPassActivities({ sql }: Pick<ActivityDeps, 'sql'>) {
  return {
    /** A pass whose expires_at passed leaves ACTIVE (a USED pass stays USED). */
    async expirePass(passId: string): Promise<void> {
      await expirePass(sql, passId);
    },
  };
}
