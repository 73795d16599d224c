/** The cabinet's PayOuts page: a single PayOut with the hold it takes; many from a CSV, a result per row. */
export function CabinetPayouts() {
  return <h1>PayOuts</h1>;
}
