/** The cabinet's Developers page: keys, the webhook URL and a test event, deliveries, the events feed, the endpoint's pause. */
export function CabinetDevelopers() {
  return <h1>Developers</h1>;
}
