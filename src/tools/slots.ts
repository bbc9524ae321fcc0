/**
 * At most N searches run at once in the process (stdio and HTTP share it); the wait for a
 * first-use download takes no slot. A freed slot is handed over on
 * the next turn of the event loop (setImmediate), so a /health request or a new connection is
 * served between two queued searches. See server/backpressure.ts for the other bounds.
 */

export class Slots {
  private used = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly max: number) {}

  async acquire(): Promise<void> {
    if (this.used < this.max) {
      this.used++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    // The slot passes to the next caller on a later turn of the event loop (I/O in between).
    if (next) setImmediate(next);
    else this.used = Math.max(0, this.used - 1);
  }

  /** Run `fn` in a slot. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await fn();
    } finally {
      this.release();
    }
  }
}

/** Searches running at once in this process (LOREKEEPER_MAX_CONCURRENT_CALLS, default 4). */
export const toolSlots = new Slots(Math.max(1, Number(process.env.LOREKEEPER_MAX_CONCURRENT_CALLS) || 4));
