/**
 * The bare-Temporal baseline of the bench: started exactly as a deal is (Update-With-Start,
 * USE_EXISTING, the same codec and search attributes), its create update runs one local
 * activity that does nothing, then it ends. What a deal costs beyond this is the gateway's.
 */
import { condition, defineUpdate, proxyLocalActivities, setHandler } from '@temporalio/workflow';

export const baselineCreateUpdate = defineUpdate<boolean>('baselineCreate');

const { baselineTouch } = proxyLocalActivities<{ baselineTouch(): Promise<boolean> }>({ startToCloseTimeout: '10 seconds' });

export async function baselineWorkflow(): Promise<void> {
  let created = false;
  setHandler(baselineCreateUpdate, async () => {
    created = await baselineTouch();
    return created;
  });
  await condition(() => created);
}
