/**
 * At most N searches run at once in a server (stdio and HTTP share it); the wait for a first-use
 * download takes no slot. A freed slot is handed over on the next turn of the event loop, so a
 * /health request or a new connection is served between two queued searches. The server creates
 * the slots from its Config (LOREKEEPER_MAX_CONCURRENT_CALLS) and passes them in ToolDeps. See
 * server/transports/backpressure.ts for the other bounds.
 */
import { Semaphore } from "../../semaphore.ts";

/** Slots for `limit` searches at once (Config `maxConcurrentCalls`, default 4). */
export function createSearchSlots(limit: number): Semaphore {
  return new Semaphore(limit, { handOverNextTurn: true });
}
