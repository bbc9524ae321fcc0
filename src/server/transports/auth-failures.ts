/**
 * Bearer-token failures per client address: counted, logged (the first at once, then one line per
 * address and window), and limited: past `maxFailures` within `windowMs`, an address's wrong tokens
 * get 429 + Retry-After until the window ends. The right token is always served: one address is
 * often many clients (a proxy, a NAT), and a lockout of all would let one shut out the rest.
 * Guessing is made hopeless by the token itself (a network bind takes only a strong one), not by
 * the limit, which keeps a guesser's noise down. At most `maxAddresses` are tracked (oldest first out).
 */
import { log } from "../../log.ts";

const AUTH_FAILURE_LIMITS = { maxFailures: 30, windowMs: 60_000, maxAddresses: 10_000 };
export type AuthFailureLimits = typeof AUTH_FAILURE_LIMITS;

interface Window {
  start: number;
  failures: number;
  limited: number;
}

export class AuthFailures {
  private readonly by = new Map<string, Window>();

  constructor(private readonly limits: AuthFailureLimits = AUTH_FAILURE_LIMITS) {}

  /** A wrong or missing token from `address`: the ms it is limited for (429), else 0 (401). */
  fail(address: string): number {
    let w = this.current(address);
    if (w && w.failures >= this.limits.maxFailures) {
      w.limited++;
      return Math.max(1, w.start + this.limits.windowMs - Date.now());
    }
    if (!w) {
      if (this.by.size >= this.limits.maxAddresses) this.by.delete(this.by.keys().next().value!);
      w = { start: Date.now(), failures: 0, limited: 0 };
      this.by.set(address, w);
      log.warn(`HTTP: refused a request with a wrong or missing bearer token from ${address}`);
    }
    w.failures++;
    if (w.failures === this.limits.maxFailures) {
      const s = Math.round(this.limits.windowMs / 1000);
      log.warn(
        `HTTP: ${w.failures} wrong or missing bearer tokens from ${address} within ${s} s; ` +
          "answering its wrong tokens 429 until the window ends",
      );
    }
    return 0;
  }

  /** The window of `address` if it is still open (a closed one is logged and dropped). */
  private current(address: string): Window | undefined {
    const w = this.by.get(address);
    if (!w) return undefined;
    if (Date.now() - w.start < this.limits.windowMs) return w;
    this.by.delete(address);
    const s = Math.round(this.limits.windowMs / 1000);
    const limited = w.limited ? ` (${w.limited} more answered 429)` : "";
    if (w.failures > 1) {
      log.warn(`HTTP: ${w.failures} wrong or missing bearer tokens from ${address} in ${s} s${limited}`);
    }
    return undefined;
  }
}

const MIN_NETWORK_TOKEN_CHARS = 16;
/** zxcvbn's top score: a random 16-character token is estimated at 10^16 guesses, "changeme-changeme" 10^8. */
const MIN_TOKEN_GUESSES_LOG10 = 10;

/** What is wrong with a token for a network bind that can be told without a dictionary, if anything. */
export function weakTokenProblem(token: string): string | undefined {
  if (token.length < MIN_NETWORK_TOKEN_CHARS)
    return (
      `the token has ${token.length} character${token.length === 1 ? "" : "s"}; a server reachable from the ` +
      `network needs at least ${MIN_NETWORK_TOKEN_CHARS}`
    );
  if (new Set(token).size < 6)
    return "the token repeats a few characters; a server reachable from the network needs a random one";
  return undefined;
}

/** Words that make a token about this server guessable, counted as dictionary words ("lorekeeperlorekeeper"). */
const CONTEXT_WORDS = ["lorekeeper", "lore", "keeper", "mcp", "dnd", "token", "secret", "bearer", "server"];

type Match = { pattern: string; token: string; baseToken?: string | string[]; dictionaryName?: string };

const MATCH_WORDS: Record<string, string> = {
  sequence: "the sequence",
  spatial: "the keyboard pattern",
  date: "the date",
  regex: "the year",
};

/** One match of the estimate in words: "the common password \"changeme\"", "\"password\" repeated". */
function describeMatch(m: Match): string | undefined {
  const t = JSON.stringify(m.token.length > 24 ? `${m.token.slice(0, 24)}…` : m.token);
  if (m.pattern === "dictionary")
    return m.dictionaryName === "userInputs" ? `the word ${t}` : `the common password or word ${t}`;
  if (m.pattern === "repeat")
    return `${JSON.stringify(typeof m.baseToken === "string" ? m.baseToken : m.token)} repeated`;
  return MATCH_WORDS[m.pattern] && `${MATCH_WORDS[m.pattern]} ${t}`;
}

let estimator: ((token: string) => { guessesLog10: number; sequence: readonly Match[] }) | undefined;

/**
 * Whether a token that passed `weakTokenProblem` is still easy to guess ("passwordpassword",
 * "1234567890123456") by zxcvbn's estimate; its password list is loaded only for a network bind.
 */
export async function guessableTokenProblem(token: string): Promise<string | undefined> {
  if (!estimator) {
    const [{ ZxcvbnFactory }, common] = await Promise.all([
      import("@zxcvbn-ts/core"),
      import("@zxcvbn-ts/language-common"),
    ]);
    const z = new ZxcvbnFactory({ dictionary: common.dictionary, graphs: common.adjacencyGraphs });
    estimator = (t) => z.check(t, CONTEXT_WORDS);
  }
  const r = estimator(token);
  if (r.guessesLog10 >= MIN_TOKEN_GUESSES_LOG10) return undefined;
  const parts = [...new Set(r.sequence.map(describeMatch).filter((x): x is string => x !== undefined))].slice(0, 3);
  const log10 = r.guessesLog10;
  const guesses = log10 < 6 ? Math.max(1, Math.round(10 ** log10)).toLocaleString("en-US") : `10^${Math.floor(log10)}`;
  const made = parts.length ? `: it is made of ${parts.join(", ")}` : "";
  return (
    `the token is easy to guess${made} (found in about ${guesses} guesses; ` +
    "a server reachable from the network needs a random one)"
  );
}
