/**
 * Pages of the API's listings, `{ data, next_page_token }`: an async iterator over every item,
 * fetching the next page only when the previous one is consumed.
 */
export interface Page<T> {
  data: T[];
  next_page_token: string;
}

/**
 * Every item of a listing, page after page, until a page's next_page_token is empty (the listings'
 * last-page rule, spec 1). `fetchPage` gets the token to send ('' for the first page).
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
 * — and `pageToken` always holds where the reading stands: keep it (a database row, a file) and
 * start from it next time to get only what came after.
 *
 *   const feed = gateway.eventFeed({ pageToken: saved });
 *   for await (const event of feed) handle(event);
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

  /** Where the reading stands: '' before the first page, then the last page's next_page_token. */
  get pageToken(): string {
    return this.token;
  }

  /** One page after the current position; the position moves to its end. */
  async nextPage(): Promise<E[]> {
    const page = await this.fetchPage(this.token, this.pageSize);
    if (page.next_page_token) this.token = page.next_page_token;
    return page.data;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<E, void, undefined> {
    for (;;) {
      const events = await this.nextPage();
      yield* events;
      if (events.length < this.pageSize) return;
    }
  }
}
