/** RFC 4180 CSV cells, with spreadsheet formula injection neutralised (OWASP): a cell that starts
 * with =, +, -, @, tab or CR is prefixed with a single quote. */
function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export const csvRow = (cells: string[]) => `${cells.map(csvCell).join(',')}\r\n`;
