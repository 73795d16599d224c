/** The cabinet's Appeals page: open an appeal with evidence, the conversation, the outcome. */
export function CabinetAppeals() {
  return <h1>Appeals</h1>;
}
