/**
 * What a 2025-era client sees on the wire, pinned in a snapshot: tools/list, prompts/list,
 * resources/list, resources/templates/list, answers of every tool (hits, empty answers with their
 * hints, tool errors) and the JSON-RPC errors of malformed requests. Taken with the v1 SDK before
 * the move to the v2 packages, so the snapshot shows that the move changed nothing a client reads
 * (the intended changes show in its git history: resource-not-found -32002 → -32602, and the MCP
 * Apps card links, `_meta.ui.resourceUri`, on five tools in tools/list).
 *
 * Raw JSON-RPC over the real HTTP front (stateless, no initialize needed), so the test does not
 * depend on either SDK's client. Timestamps are replaced by "<time>".
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type HttpServerHandle, startHttpServer } from "../../src/server/transports/http.ts";
import { makeStore } from "../support/entities.ts";
import { makeDeps } from "../support/mcp.ts";

let http: HttpServerHandle;
let cleanup: () => void;

beforeAll(async () => {
  const made = makeStore();
  cleanup = made.cleanup;
  http = await startHttpServer(makeDeps(made.store), { port: 0 });
});
afterAll(async () => {
  await http.stop();
  cleanup();
});

let nextId = 1;

/** One request, answered by one JSON-RPC response (from a JSON body or the SSE stream). */
async function rpc(method: string, params?: unknown): Promise<unknown> {
  const res = await fetch(http.url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, ...(params === undefined ? {} : { params }) }),
  });
  const text = await res.text();
  const json = (res.headers.get("content-type") ?? "").includes("text/event-stream")
    ? text
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trim())
        .filter(Boolean)
        .at(-1)
    : text;
  const msg = JSON.parse(json ?? "null") as { result?: unknown; error?: unknown };
  return msg.error !== undefined ? { error: msg.error } : { result: msg.result };
}

function stable(v: unknown): unknown {
  const s = JSON.stringify(v).replace(/(\\?"(?:generated_at|data_synced_at)\\?":\\?")[0-9T:.\-Z]+/g, "$1<time>");
  return JSON.parse(s);
}

const CALLS: Array<[string, Record<string, unknown> | null]> = [
  ["search_spell", { name: "Fireball" }],
  ["search_spell", { name: "Firebal" }],
  ["search_spell", { search: "explosion of flame", limit: 2 }],
  ["search_spell", { level: 12 }],
  ["search_spell", { name: "Fireball", bogus: 1 }],
  ["search_spell", null],
  ["search_creature", { name: "Goblin", detail: "full" }],
  ["search_creature", { cr: "1/4" }],
  ["search_creature", { creature_type: "dragonish" }],
  ["search_character_option", { type: "class" }],
  ["search_character_option", { type: "spaceship" }],
  ["search_equipment", { name: "Longsword" }],
  ["search_equipment", { name: "Nothing Like This" }],
  ["search_rule", { name: "Grappled" }],
  ["search_rule", { rule_type: "nope" }],
  ["search_all", { search: "sword", limit: 3 }],
  ["search_all", { content_types: ["starship"] }],
  ["search_all", { documents: ["no-such-book"] }],
  ["list_documents", {}],
  ["list_documents", { format: "text" }],
  ["build_encounter", { party_levels: [3, 3, 4], monsters: [{ name: "Goblin", count: 4 }] }],
  ["build_encounter", { party_levels: [] }],
  ["class_progression", { class: "Wizard", level_max: 3 }],
  ["class_progression", { class: "Spaceman" }],
  ["no_such_tool", {}],
];

test("tools/list, prompts and resources lists are what they were", async () => {
  expect(
    stable(
      await rpc("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "snapshot", version: "0" },
      }),
    ),
  ).toMatchSnapshot();
  expect(await rpc("ping")).toMatchSnapshot();
  expect(stable(await rpc("tools/list"))).toMatchSnapshot();
  expect(stable(await rpc("prompts/list"))).toMatchSnapshot();
  expect(stable(await rpc("resources/list"))).toMatchSnapshot();
  expect(stable(await rpc("resources/templates/list"))).toMatchSnapshot();
});

test("every tool's answers and errors are what they were", async () => {
  const out: Record<string, unknown> = {};
  for (const [i, [name, args]] of CALLS.entries()) {
    out[`${i} ${name} ${JSON.stringify(args)}`] = stable(
      await rpc("tools/call", args === null ? { name, arguments: null } : { name, arguments: args }),
    );
  }
  expect(out).toMatchSnapshot();
});

test("protocol errors and resources read the same", async () => {
  const out: Record<string, unknown> = {
    "call without params": await rpc("tools/call"),
    "call with a number name": await rpc("tools/call", { name: 7 }),
    "call with list arguments": await rpc("tools/call", { name: "search_spell", arguments: [1] }),
    "read documents": stable(await rpc("resources/read", { uri: "lorekeeper://documents" })),
    "read a spell": stable(await rpc("resources/read", { uri: "lorekeeper://spell/srd_fireball" })),
    "read missing": await rpc("resources/read", { uri: "lorekeeper://spell/srd_nothing" }),
    "read unknown kind": await rpc("resources/read", { uri: "lorekeeper://starship/x" }),
    "read not a uri": await rpc("resources/read", { uri: "not a uri" }),
    "read no uri": await rpc("resources/read", {}),
    prompt: await rpc("prompts/get", { name: "spell_card", arguments: { name: "Fireball" } }),
    "prompt unknown": await rpc("prompts/get", { name: "nope" }),
    "prompt missing argument": await rpc("prompts/get", { name: "spell_card", arguments: {} }),
    "complete kind": await rpc("completion/complete", {
      ref: { type: "ref/resource", uri: "lorekeeper://{kind}/{key}" },
      argument: { name: "kind", value: "sp" },
    }),
    "complete spell name": await rpc("completion/complete", {
      ref: { type: "ref/prompt", name: "spell_card" },
      argument: { name: "name", value: "Fi" },
    }),
    "complete unknown prompt": await rpc("completion/complete", {
      ref: { type: "ref/prompt", name: "nope" },
      argument: { name: "x", value: "" },
    }),
    "set level": await rpc("logging/setLevel", { level: "info" }),
    "set bad level": await rpc("logging/setLevel", { level: "loud" }),
  };
  expect(out).toMatchSnapshot();
});
