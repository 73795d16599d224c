/**
 * CSV as every export writes it: RFC 4180 quoting, CRLF records, and spreadsheet formula
 * injection neutralised (OWASP: a cell starting with =, +, -, @, tab or CR, or their full-width
 * forms, gets a leading single quote) — csv-stringify's rules, one configuration for all exports.
 */
import { stringify as stringifyStream, type Stringifier } from 'csv-stringify';
import { stringify } from 'csv-stringify/sync';

const OPTIONS = { escape_formulas: true, record_delimiter: '\r\n', quote_record_delimiter: true } as const;

/** One record as CSV text, its CRLF included. */
export const csvRow = (cells: string[]) => stringify([cells], OPTIONS);

/** A cell alone, quoted and neutralised as in a record. */
export const csvCell = (value: string) => csvRow([value]).slice(0, -2);

/** A transform from records (arrays of cells) to CSV text, the header first. */
export const csvStream = (header: readonly string[]): Stringifier => stringifyStream({ ...OPTIONS, header: true, columns: [...header] });
