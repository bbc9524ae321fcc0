/**
 * What a client shows the model. Claude Code passes only `structuredContent` on success (the text
 * block and resource links are dropped) and only the text on `isError`. So for every tool, in
 * both protocol eras: a success carries the whole answer in `structuredContent` (the text is the
 * same object, nothing more), an empty answer's hint (`message`) is in `structuredContent`, and an
 * error carries its guidance in the text and no `structuredContent`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeStore } from "../support/entities.ts";
import { connectInMemory, makeDeps, TOOL_NAMES } from "../support/mcp.ts";
import { TOOL_CASES } from "../support/tool-calls.ts";
import { connectV2InProcess } from "../support/v2-client.ts";

interface Result {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}
type Call = (name: string, args: Record<string, unknown>) => Promise<Result>;

let made: ReturnType<typeof makeStore>;
const calls: Record<string, Call> = {};
const closers: Array<() => Promise<void>> = [];
const required: Record<string, string[]> = {};

beforeAll(async () => {
  made = makeStore();
  const deps = makeDeps(made.store);
  const legacy = await connectInMemory(deps);
  const modern = await connectV2InProcess(deps, "modern");
  expect(modern.client.getProtocolEra()).toBe("modern");
  calls["2025-11-25"] = async (name, args) => (await legacy.client.callTool({ name, arguments: args })) as Result;
  calls["2026-07-28"] = async (name, args) => (await modern.client.callTool({ name, arguments: args })) as Result;
  closers.push(legacy.close, modern.close);
  for (const t of (await legacy.client.listTools()).tools)
    required[t.name] = (t.inputSchema.required ?? []) as string[];
});
afterAll(async () => {
  for (const c of closers) await c();
  made.cleanup();
});

const texts = (r: Result) => (r.content ?? []).filter((c) => c.type === "text").map((c) => c.text ?? "");

test("every tool has its cases", () => {
  expect(Object.keys(TOOL_CASES).sort()).toEqual([...TOOL_NAMES].sort());
});

for (const era of ["2025-11-25", "2026-07-28"]) {
  describe(`${era}: structuredContent on success, guidance in the text on error`, () => {
    for (const name of TOOL_NAMES) {
      test(name, async () => {
        const cases = TOOL_CASES[name]!;
        const call = calls[era]!;

        const ok = await call(name, cases.ok);
        expect(ok.isError ?? false).toBe(false);
        expect(typeof ok.structuredContent).toBe("object");
        // The text (for clients that show it) is the same answer: structuredContent loses nothing.
        const [okText] = texts(ok);
        expect(JSON.parse(okText!)).toEqual(ok.structuredContent!);

        if (cases.empty) {
          const empty = await call(name, cases.empty);
          expect(empty.isError ?? false).toBe(false);
          const sc = empty.structuredContent!;
          const rows = (sc.results ?? sc.documents) as unknown[];
          expect(rows).toEqual([]);
          // The hint that says why and what to try is part of the structured answer.
          expect(String(sc.message ?? "").length).toBeGreaterThan(20);
          expect(JSON.parse(texts(empty)[0]!)).toEqual(sc);
        }

        const err = await call(name, cases.error);
        expect(err.isError).toBe(true);
        expect(err.structuredContent).toBeUndefined();
        const guidance = texts(err).join("\n");
        // Guidance, not a bare refusal: it names what was wrong (a parameter or the value sent)
        // or what to send (a required parameter), whatever its wording.
        const sent = Object.entries(cases.error).flatMap(([k, v]) => [k, String(v)]);
        expect(guidance.length).toBeGreaterThan(30);
        expect([...sent, ...required[name]!].some((w) => guidance.includes(w))).toBe(true);
        expect(guidance).not.toMatch(/\n\s+at .+:\d+/); // never a stack trace
      });
    }

    test("a ranked search's hint (semantic ranking off) is in structuredContent", async () => {
      const r = await calls[era]!("search_spell", { search: "explosion of flame", limit: 2 });
      expect(String(r.structuredContent?.message)).toContain("Semantic ranking is off");
    });
  });
}
