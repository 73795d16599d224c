/** The cabinet's Wallet page: withdrawals (fee quote, address, history) and the TRC-20 deposit address with its QR code. */
export function CabinetWallet() {
  return <h1>Wallet</h1>;
}
