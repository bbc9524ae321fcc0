/**
 * A FIFO counting semaphore: at most `limit` holders at once, the rest wait in order. Used for the
 * upstream HTTP client's concurrency and for the searches a server runs at once (tools/kit/deps.ts
 * createSearchSlots).
 *
 * `handOverNextTurn`: a freed slot passes to the next waiter on a later turn of the event loop
 * (setImmediate) instead of at once, so I/O (a /health request, a new connection) is served
 * between two queued holders. The server's search slots use it; the HTTP client does not need it.
 */
export class Semaphore {
  private active = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(
    readonly limit: number,
    private readonly opts: { handOverNextTurn?: boolean } = {},
  ) {
    if (!(limit >= 1)) throw new Error(`Semaphore limit must be >= 1 (got ${limit})`);
  }

  get inFlight(): number {
    return this.active;
  }

  async acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (!next) this.active = Math.max(0, this.active - 1);
    else if (this.opts.handOverNextTurn) setImmediate(next);
    else next(); // the slot passes to the waiter directly
  }

  /** Run `fn` holding a slot. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await fn();
    } finally {
      this.release();
    }
  }
}
