/**
 * CSV as every export writes it: RFC 4180 quoting, CRLF records, and spreadsheet formula
 * injection neutralised (OWASP: a cell starting with =, +, -, @, tab or CR, or their full-width
 * forms, gets a leading single quote) — csv-stringify's rules, one configuration for all exports.
 */
import { stringify } from 'csv-stringify/sync';

const OPTIONS = { escape_formulas: true, record_delimiter: '\r\n', quote_record_delimiter: true } as const;

/** Records as CSV text, each with its CRLF. */
export const csvRows = (rows: string[][]) => (rows.length === 0 ? '' : stringify(rows, OPTIONS));

/** One record as CSV text, its CRLF included. */
export const csvRow = (cells: string[]) => csvRows([cells]);

/**
 * An export's file name: the list, then each filter that is set as `key-value`, in a form every
 * file system and the Content-Disposition header take (letters, digits, dot, dash, underscore).
 */
export function exportFileName(list: string, filters: Record<string, string | undefined>): string {
  const safe = (v: string) =>
    v
      .replace(/:/g, '-')
      .replace(/[^A-Za-z0-9.-]+/g, '_')
      .slice(0, 64);
  const parts = Object.entries(filters)
    .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '')
    .map(([key, value]) => `${key}-${safe(value)}`);
  return `${[list, ...parts].join('_')}.csv`;
}
