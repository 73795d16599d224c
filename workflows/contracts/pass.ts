/** The pass expiry workflow (issue 9): id `pass:<pass_id>`, sleeps until expires_at, then ACTIVE → EXPIRED. */
export const passWorkflowId = (passId: string) => `pass:${passId}`;

export interface PassWorkflowInput {
  passId: string;
  /** RFC 3339. */
  expiresAt: string;
}
