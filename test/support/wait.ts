/**
 * Wait for a condition instead of sleeping a fixed time and asserting: on a loaded machine work
 * takes longer, never a different path. Polls `cond` until it holds or `timeoutMs` passes (then the
 * caller's assertion fails with what it saw).
 */
export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
  stepMs = 10,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return true;
    if (Date.now() >= deadline) return false;
    await Bun.sleep(stepMs);
  }
}
