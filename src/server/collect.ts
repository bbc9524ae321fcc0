/**
 * A young-generation collection between answers, after every COLLECT_AFTER_CHARS characters of
 * answer text (tools and resources, every transport, the whole process).
 *
 * Why: JavaScriptCore collects when its allocation budget runs out, mostly in the middle of a call,
 * so what the call still holds survives into the old generation until a full collection, and a server
 * answering searches back to back grew well past what it holds live. Right after an answer almost
 * none of it is live: collecting then keeps the peak lower at the same CPU (docs/benchmark.md, "a
 * collection between answers"). Each collection holds the main thread a few ms (about once per eight
 * search answers); it runs on `setImmediate`, after the answer was handed to the transport.
 */
import { edenGC } from "bun:jsc";
import { log } from "../log.ts";

/** Answer text (characters) between two collections. */
export const COLLECT_AFTER_CHARS = 128 * 1024;

/** One young-generation collection now; returns the heap's size after it (bytes). */
export function collectYoung(): number {
  return edenGC();
}

export class AnswerCollector {
  private since = 0;
  private pending = false;

  /** Characters of answers noted since the last collection ran. */
  get charsSinceCollection(): number {
    return this.since;
  }

  constructor(
    private readonly threshold: number = COLLECT_AFTER_CHARS,
    private readonly collect: () => void = collectYoung,
    private readonly later: (fn: () => void) => void = (fn) => void setImmediate(fn),
  ) {}

  /** An answer of `chars` characters was made: past `threshold` since the last collection, one is scheduled. */
  noteAnswer(chars: number): void {
    this.since += chars;
    if (this.pending || this.since < this.threshold) return;
    this.pending = true;
    this.later(() => {
      this.pending = false;
      this.since = 0;
      try {
        this.collect();
      } catch (err) {
        log.debug("young-generation collection failed", err);
      }
    });
  }
}

/** The process's collector (the heap is the process's, whatever the transport or server instance). */
export const answerCollector = new AnswerCollector();

/** Characters of text in an answer's content blocks or resource contents. Pure. */
export function answerChars(blocks: readonly object[] | undefined): number {
  let n = 0;
  for (const b of blocks ?? []) if ("text" in b && typeof b.text === "string") n += b.text.length;
  return n;
}
