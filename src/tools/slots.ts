/**
 * At most N searches run at once in the process (stdio and HTTP share it); the wait for a
 * first-use download takes no slot. A freed slot is handed over on the next turn of the event loop,
 * so a /health request or a new connection is served between two queued searches. See
 * server/backpressure.ts for the other bounds.
 */
import { loadConfig } from "../config.ts";
import { Semaphore } from "../semaphore.ts";

/** Searches running at once in this process (LOREKEEPER_MAX_CONCURRENT_CALLS, default 4). */
export const toolSlots = new Semaphore(loadConfig().maxConcurrentCalls, { handOverNextTurn: true });
