/** The cabinet's Settings page: brand, redirects, limits, IP whitelist. */
export function CabinetSettings() {
  return <h1>Settings</h1>;
}
