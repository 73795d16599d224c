/**
 * What every operator export shares: a CSV stream of a listing's whole selection, read in batches
 * through a database cursor (constant memory whatever the size), answered with its file name.
 */
import { Readable } from 'node:stream';
import { csvRow, csvRows } from '../../domain/csv';

export interface CsvExport {
  fileName: string;
  body: Readable;
}

/**
 * The header, then each batch as records. The first batch is read before the answer starts, so a
 * query that fails fails as a problem+json answer, not as a 200 cut off mid-body; a client that
 * goes away closes the cursor (its connection returns to the pool).
 */
export async function csvExport<R>(
  fileName: string,
  header: readonly string[],
  batches: AsyncIterable<R[]>,
  records: (batch: R[]) => string[][] | Promise<string[][]>,
): Promise<CsvExport> {
  const iterator = batches[Symbol.asyncIterator]();
  const first = await iterator.next();
  async function* text() {
    try {
      yield csvRow([...header]);
      if (first.done) return;
      yield csvRows(await records(first.value));
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield csvRows(await records(next.value));
    } finally {
      await iterator.return?.();
    }
  }
  return { fileName, body: Readable.from(text()) };
}
