/**
 * Pages of the API's listings, `{ data, next_page_token }`: an async iterator over every item,
 * fetching the next page only when the previous one is consumed.
 */
export interface Page<T> {
  data: T[];
  next_page_token: string;
}

/**
 * Every item of a listing, page after page, until a page's next_page_token is empty (an empty
 * token marks the last page). `fetchPage` gets the token to send ('' for the first page).
 */
export async function* paginate<T>(fetchPage: (pageToken: string) => Promise<Page<T>>, firstToken = ''): AsyncGenerator<T, void, undefined> {
  let token = firstToken;
  for (;;) {
    const page = await fetchPage(token);
    yield* page.data;
    if (!page.next_page_token) return;
    token = page.next_page_token;
  }
}

/**
 * The events feed (GET /events) read to its current end: every event after `pageToken`, oldest
 * first. The feed's token is never empty — a page shorter than the page size is its end for now
 * — and `pageToken` holds where the reading stands: keep it (a database row, a file) and start
 * from it next time to get only what came after.
 *
 * **At least once.** The gateway makes tokens for page ends only, so while a page is being handed
 * out `pageToken` stays at the page's start; it moves to the page's end when the loop comes back
 * for the event after the page's last one, that is once every event of the page was handled. If
 * the loop body throws, or the loop breaks, part-way through a page, `pageToken` still names that
 * page's start: a feed started from it hands the whole page out again — the events already handled
 * included, none skipped. Handle events idempotently (dedupe by event_id).
 *
 *   const feed = gateway.eventFeed({ pageToken: saved });
 *   for await (const event of feed) await handleOnce(event);   // deduped by event_id
 *   save(feed.pageToken);
 */
export class EventFeed<E> implements AsyncIterable<E> {
  private token: string;

  constructor(
    private readonly fetchPage: (pageToken: string, pageSize: number) => Promise<Page<E>>,
    options: { pageToken?: string; pageSize?: number } = {},
    private readonly pageSize = Math.max(1, Math.min(250, options.pageSize ?? 100)),
  ) {
    this.token = options.pageToken ?? '';
  }

  /**
   * Where the reading stands: '' or the token started from, then the end of the last page whose
   * every event was handed out and handled (so at a page's start while one is in progress).
   */
  get pageToken(): string {
    return this.token;
  }

  /**
   * One page after the current position, as a batch: the position moves to the page's end as soon
   * as it is returned, so save `pageToken` only once the whole batch is handled.
   */
  async nextPage(): Promise<E[]> {
    const page = await this.fetchPage(this.token, this.pageSize);
    if (page.next_page_token) this.token = page.next_page_token;
    return page.data;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<E, void, undefined> {
    for (;;) {
      const page = await this.fetchPage(this.token, this.pageSize);
      // Reached after the consumer asked for the event after the last one: each was handled.
      for (const event of page.data) yield event;
      if (page.next_page_token) this.token = page.next_page_token;
      if (page.data.length < this.pageSize) return;
    }
  }
}
