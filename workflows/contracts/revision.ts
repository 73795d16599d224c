/**
 * The revision of deal workflow code a run was started with (in its input). A run keeps the
 * behaviour of the revision it began with, so a change of what a deal workflow does (its
 * commands) needs no patch marker: markers cost every new run a search-attribute upsert
 * (TemporalChangeVersion), which is what issue 21 removes. Runs started before revisions existed
 * are revision 1.
 *
 * 2 (issue 21): DealStatus written once, when the deal ends; the PayIn confirm in one step.
 * 3 (issue 21): deal steps are local activities (workflows/activity-proxies.ts).
 * 4: a withdrawal whose create step failed for an infrastructure reason gives the create up
 *    through the create fence and adopts a row an attempt committed (findWithdrawalSnapshot),
 *    as deals always did; before, it ended "not created" without looking.
 */
export const DEAL_REVISION = 4;

export const atRevision = (input: { revision?: number }, revision: number) => (input.revision ?? 1) >= revision;
