/**
 * The HTTP transport's bound on work in flight (docs/architecture.md, "Limits"): messages being
 * worked on (a batch of 32 counts 32). Past `maxInFlight` a request waits in a bounded queue
 * (`maxQueued` messages, at most `maxWaitMs`), else it is refused (503 with Retry-After). Searches
 * have their own slots (createSearchSlots in tools/kit/deps.ts); stdio its own bound (stdio-transport.ts).
 */
interface AdmissionLimits {
  maxInFlight: number;
  maxQueued: number;
  maxWaitMs: number;
}

type Admitted = { ok: true; release: () => void } | { ok: false; why: "busy" | "timeout" };

export class Admission {
  private inFlight = 0;
  private queued = 0;
  private readonly waiting: Array<{ n: number; go: () => void }> = [];

  constructor(readonly limits: AdmissionLimits) {}

  /** Room for `n` messages: at once, after a bounded wait, or a refusal. */
  async admit(n: number): Promise<Admitted> {
    const weight = Math.min(n, this.limits.maxInFlight);
    if (this.waiting.length === 0 && this.inFlight + weight <= this.limits.maxInFlight) {
      this.inFlight += weight;
      return this.handle(weight);
    }
    if (this.queued + weight > this.limits.maxQueued) return { ok: false, why: "busy" };
    this.queued += weight;
    const entry = { n: weight, go: () => {} };
    const got = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        resolve(false);
      }, this.limits.maxWaitMs);
      entry.go = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.waiting.push(entry);
    });
    this.queued -= weight;
    if (!got) {
      this.wake();
      return { ok: false, why: "timeout" };
    }
    // wake() already counted it in.
    return this.handle(weight);
  }

  private handle(weight: number): Admitted {
    let done = false;
    return {
      ok: true,
      release: () => {
        if (done) return;
        done = true;
        this.inFlight -= weight;
        this.wake();
      },
    };
  }

  private wake(): void {
    while (this.waiting.length > 0 && this.inFlight + this.waiting[0]!.n <= this.limits.maxInFlight) {
      const next = this.waiting.shift()!;
      // Counted in now, so that one wake never admits past the limit.
      this.inFlight += next.n;
      next.go();
    }
  }

  /** Messages being worked on and waiting (tests, /health). */
  load(): { inFlight: number; queued: number } {
    return { inFlight: this.inFlight, queued: this.queued };
  }
}
