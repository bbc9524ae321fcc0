/**
 * A young-generation collection between answers, after every COLLECT_AFTER_CHARS characters of
 * answer text (tools and resources, every transport, the whole process).
 *
 * Why: a call's garbage (rows read, ranking arrays, the answer and its JSON) is dead once the
 * answer is written, but JavaScriptCore collects when its allocation budget runs out, which is
 * mostly in the middle of a call: what the call still holds then survives into the old
 * generation and stays until a full collection. Searches make most of it (an answer and the rows
 * behind it), so a server answering searches back to back grew well past what it holds live.
 * Collecting young objects right after an answer, when almost none of them are live, keeps the
 * peak lower at the same server CPU (measured in docs/benchmark.md, "a collection between
 * answers").
 *
 * Cost: each collection holds the main thread for a few milliseconds, so it runs about once per
 * eight search answers and once per ~60 name lookups. It runs on `setImmediate`, after the answer
 * has been handed to the transport, never inside the call that made it; over HTTP another
 * request's call that is waiting (for the model, say) may wait that much longer.
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

  /**
   * An answer of `chars` characters was made: once `threshold` have been since the last
   * collection, one is scheduled (answers made before it runs are collected by it too).
   */
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
