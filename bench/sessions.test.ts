/** The whole-session phase's calls (bench/phases/sessions.ts): the same questions in each dialect. */
import { describe, expect, test } from "bun:test";
import { SESSION_KINDS, sessionCalls, sessionTable } from "./phases/sessions.ts";

describe("session calls", () => {
  test("(a) one lookup, (b) one meaning search, (c) 20 calls with three meaning searches, in both dialects", () => {
    for (const dialect of ["lorekeeper", "dnd-oracle"] as const) {
      const counts = SESSION_KINDS.map((k) => sessionCalls(k, dialect).length);
      expect(counts).toEqual([1, 1, 20]);
    }
    const meaning = sessionCalls("dm20", "lorekeeper").filter(([, args]) => "search" in args);
    expect(meaning.length).toBe(3);
    // The peer gets the same words in its word search, at the same places in the session.
    const peer = sessionCalls("dm20", "dnd-oracle");
    sessionCalls("dm20", "lorekeeper").forEach(([, args], i) => {
      if ("search" in args) expect(peer[i]![1].query).toBe(args.search);
      if ("name" in args) expect(peer[i]![1].query).toBe(args.name);
    });
  });

  test("the table has a row per kind and server", () => {
    const t = sessionTable([{ kind: "lookup", server: "source", cpuMs: 230, peakMb: 81.4, startMs: 285 }]);
    expect(t).toContain("| (a) one name lookup | source | 0.23 | 81 | 285 |");
  });
});
