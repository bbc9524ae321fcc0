/**
 * Bearer-token failures on the HTTP transport, per client address: counted, logged (the first one
 * of an address at once, then one line per address and window with the count), and limited: an
 * address that sent `maxFailures` wrong or missing tokens within `windowMs` is answered 429 +
 * Retry-After until the window ends, without its token being compared (so guessing goes no faster
 * than maxFailures per window). Clients with the right token are never counted. Bounded: at most
 * `maxAddresses` addresses are tracked (the oldest window is dropped first).
 */
import { log } from "../log.ts";

export interface AuthFailureLimits {
  maxFailures: number;
  windowMs: number;
  maxAddresses: number;
}

export const AUTH_FAILURE_LIMITS: AuthFailureLimits = { maxFailures: 30, windowMs: 60_000, maxAddresses: 10_000 };

interface Window {
  start: number;
  failures: number;
  limited: number;
}

export class AuthFailures {
  private readonly by = new Map<string, Window>();
  /** Every failure since the start (for /health and tests). */
  total = 0;

  constructor(
    private readonly limits: AuthFailureLimits = AUTH_FAILURE_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds this address must wait before its token is looked at again, or 0. */
  retryAfterMs(address: string): number {
    const w = this.current(address);
    if (!w || w.failures < this.limits.maxFailures) return 0;
    w.limited++;
    return Math.max(1, w.start + this.limits.windowMs - this.now());
  }

  /** A wrong or missing token from `address`. */
  fail(address: string): void {
    this.total++;
    let w = this.current(address);
    if (!w) {
      if (this.by.size >= this.limits.maxAddresses) this.by.delete(this.by.keys().next().value!);
      w = { start: this.now(), failures: 0, limited: 0 };
      this.by.set(address, w);
      log.warn(`HTTP: refused a request with a wrong or missing bearer token from ${address}`);
    }
    w.failures++;
    if (w.failures === this.limits.maxFailures) {
      log.warn(`HTTP: ${w.failures} wrong or missing bearer tokens from ${address} within ${Math.round(this.limits.windowMs / 1000)} s; answering it 429 until the window ends`);
    }
  }

  /** The window of `address` if it is still open (a closed one is logged and dropped). */
  private current(address: string): Window | undefined {
    const w = this.by.get(address);
    if (!w) return undefined;
    if (this.now() - w.start < this.limits.windowMs) return w;
    this.by.delete(address);
    if (w.failures > 1) log.warn(`HTTP: ${w.failures} wrong or missing bearer tokens from ${address} in ${Math.round(this.limits.windowMs / 1000)} s${w.limited ? ` (${w.limited} more answered 429 unchecked)` : ""}`);
    return undefined;
  }
}

/** The weakest token accepted when the server listens beyond loopback. */
export const MIN_NETWORK_TOKEN_CHARS = 16;

/** What is wrong with a token for a network bind, if anything. */
export function weakTokenProblem(token: string): string | undefined {
  if (token.length < MIN_NETWORK_TOKEN_CHARS) return `the token has ${token.length} character${token.length === 1 ? "" : "s"}; a server reachable from the network needs at least ${MIN_NETWORK_TOKEN_CHARS}`;
  if (new Set(token).size < 6) return "the token repeats a few characters; a server reachable from the network needs a random one";
  return undefined;
}
