/** The cabinet's Team page: members, roles, invitations. */
export function CabinetTeam() {
  return <h1>Team</h1>;
}
