/**
 * How a deal-like workflow (PayIn, PayOut, withdrawal) ends: it made its object and saw it to a
 * final status, or its create step refused and nothing was made (the API then deletes the closed
 * run, api/services/deal-workflows.ts). One declaration for every contract.
 */
export type DealOutcome<Status> = { created: false; reason: string } | { created: true; status: Status };
