/**
 * prompts/get and completion/complete under hostile input, through a real MCP client: every call
 * gets a well-formed answer or a -32602 error that names the problem, never a leak or a crash, and
 * completions keep their contract (≤ 100 values, total ≥ values, hasMore = total > values).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CompleteResultSchema, GetPromptResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { PROMPTS } from "../../src/server/features/prompts.ts";
import { encounterCreatures } from "../support/encounter-creatures.ts";
import { makeStore, sampleEntities } from "../support/entities.ts";
import { fuzzCalls, fuzzSeed, hostileString, leaks, Rng } from "../support/fuzz.ts";
import { connectInMemory, makeDeps } from "../support/mcp.ts";

const SEED = fuzzSeed();
const N = fuzzCalls(600);

let client: Client;
let close: () => Promise<void>;
let cleanup: () => void;

beforeAll(async () => {
  const s = makeStore([...sampleEntities(), ...encounterCreatures()]);
  cleanup = s.cleanup;
  ({ client, close } = await connectInMemory(makeDeps(s.store)));
});
afterAll(async () => {
  await close();
  cleanup();
});

function value(r: Rng): unknown {
  if (r.chance(0.6)) return hostileString(r);
  return r.pick<unknown>(["fire", "Gh", "", "srd", "w", 42, null, true, {}, [], ["a"], "x".repeat(5000)]);
}

function promptParams(r: Rng): Record<string, unknown> {
  const p = r.pick(PROMPTS);
  const name = r.chance(0.9) ? p.name : hostileString(r);
  const args: Record<string, unknown> = {};
  for (const k of Object.keys(p.args)) if (r.chance(0.6)) args[k] = r.chance(0.7) ? String(value(r)) : value(r);
  if (r.chance(0.1)) args[hostileString(r).slice(0, 40)] = "x";
  return r.chance(0.05) ? { name, arguments: value(r) } : { name, arguments: args };
}

function completeParams(r: Rng): Record<string, unknown> {
  const prompt = r.pick(PROMPTS);
  const ref = r.pick<unknown>([
    { type: "ref/resource", uri: "lorekeeper://{kind}/{key}" },
    { type: "ref/resource", uri: "lorekeeper://class/{key}/levels" },
    { type: "ref/prompt", name: prompt.name },
    { type: "ref/prompt", name: hostileString(r) },
    { type: "ref/resource", uri: hostileString(r) },
    { type: hostileString(r) },
    value(r),
  ]);
  const argName = r.pick(["kind", "key", ...Object.keys(prompt.args), hostileString(r)]);
  const context = r.chance(0.5)
    ? {
        arguments: {
          kind: r.pick(["spell", "creature", "class", "Magic-Item", hostileString(r)]),
          edition: r.pick(["2014", "2024", "x"]),
        },
      }
    : r.chance(0.1)
      ? value(r)
      : undefined;
  return {
    ref,
    argument: r.chance(0.95) ? { name: argName, value: r.chance(0.9) ? String(value(r)) : value(r) } : value(r),
    ...(context !== undefined ? { context } : {}),
  };
}

describe("prompts and completions under fuzzing", () => {
  test(`${N} hostile prompts/get and completion/complete calls (seed ${SEED})`, async () => {
    const r = new Rng(SEED);
    const failures: string[] = [];
    let answers = 0;
    let errors = 0;
    for (let i = 0; i < N; i++) {
      const isPrompt = r.chance(0.4);
      const params = isPrompt ? promptParams(r) : completeParams(r);
      const show = JSON.stringify(params).slice(0, 200);
      try {
        if (isPrompt) {
          const res = await client.request({ method: "prompts/get", params: params as never }, GetPromptResultSchema);
          const text = res.messages.map((m) => (m.content.type === "text" ? m.content.text : "")).join("");
          if (!text.trim()) failures.push(`empty prompt for ${show}`);
          if (leaks(text)) failures.push(`prompt leaks ${leaks(text)}: ${show}`);
          if (text.length > 20_000) failures.push(`prompt of ${text.length} characters: ${show}`);
        } else {
          const res = await client.request(
            { method: "completion/complete", params: params as never },
            CompleteResultSchema,
          );
          const c = res.completion;
          if (c.values.length > 100) failures.push(`${c.values.length} values: ${show}`);
          if (c.total !== undefined && c.total < c.values.length)
            failures.push(`total ${c.total} < ${c.values.length}: ${show}`);
          if (c.hasMore !== (c.total !== undefined && c.total > c.values.length))
            failures.push(`hasMore ${c.hasMore} with total ${c.total}: ${show}`);
        }
        answers++;
      } catch (err) {
        errors++;
        const e = err as { code?: number; message?: string };
        const msg = String(e.message ?? err);
        if (e.code !== -32602) failures.push(`code ${e.code} (${msg.slice(0, 150)}): ${show}`);
        else if (leaks(msg)) failures.push(`error leaks ${leaks(msg)}: ${msg.slice(0, 200)}`);
        else if (msg.length > 2000) failures.push(`error of ${msg.length} characters: ${show}`);
      }
    }
    if (failures.length)
      process.stderr.write(
        `[fuzz-prompts] seed ${SEED}: ${failures.length} failures\n${failures.slice(0, 10).join("\n")}\n`,
      );
    expect(failures.slice(0, 5)).toEqual([]);
    expect(answers).toBeGreaterThan(N * 0.2);
    expect(errors).toBeGreaterThan(0);
  });
});
