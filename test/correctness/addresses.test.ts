/**
 * Every address resolves: each `lorekeeper://` address that any tool answer, prompt or completion
 * produces is read back through the real server (`lorekeeper serve` over stdio, a real MCP client)
 * and must answer. Two stores: one after `sync --source open5e_v1` alone (a repro from
 * a DM's questions: the 2014 encounter linked `lorekeeper://creature/ogre`, class_progression
 * `lorekeeper://class/warlock`, completions offered bare `owlbear`), and one synced with every
 * source (Open5e v2 and v1, the D&D 5e API) plus an OrcBrew pack.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { ENTITY_KINDS } from "../../src/entities/types.ts";
import { importOrcbrewText } from "../../src/ingest/import-orcbrew.ts";
import { runSync } from "../../src/ingest/sync.ts";
import { openStore } from "../../src/store/db.ts";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { connectStdio } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";
import { upstreamEnvAt, upstreamsAt } from "../../src/sources/index.ts";

let fake: FakeUpstream;
let tmp: ReturnType<typeof makeTempDir>;

const FIXTURES = join(import.meta.dir, "..", "fixtures");

beforeAll(async () => {
  fake = await startFakeUpstream({ dataDir: join(FIXTURES, "upstream") });
  tmp = makeTempDir("lk-addr-");
});

afterAll(async () => {
  await fake.stop();
  tmp.cleanup();
});

async function syncedStore(
  name: string,
  sources: Array<"open5e_v2" | "open5e_v1" | "dnd5e_api">,
  pack: boolean,
): Promise<string> {
  const path = join(tmp.dir, `${name}.db`);
  const store = openStore({ path });
  try {
    const config = { ...loadConfig(), ...upstreamsAt(fake.url), httpRetries: 0 };
    const r = await runSync(store, { config, sources, force: true });
    expect(r.results.filter((x) => x.status === "failed").map((x) => `${x.contentType}: ${x.error}`)).toEqual([]);
    if (pack) {
      const file = join(FIXTURES, "orcbrew", "all-types.orcbrew");
      expect(importOrcbrewText(store.db, readFileSync(file, "utf8"), file).ok).toBe(true);
    }
  } finally {
    store.close();
  }
  return path;
}

function env(name: string): Record<string, string> {
  const dir = join(tmp.dir, name);
  return {
    HOME: dir,
    XDG_DATA_HOME: join(dir, "data"),
    XDG_CACHE_HOME: join(dir, "cache"),
    ...upstreamEnvAt(fake.url),
    LOREKEEPER_HTTP_RETRIES: "0",
    LOREKEEPER_MODEL_DIR: join(dir, "no-model"),
  };
}

const ADDRESS = /lorekeeper:\/\/[a-z_]+\/[^\s"'`)<>\]]+/g;

/** Every address in a value (answers, prompt texts), without trailing punctuation. */
function addressesIn(v: unknown, out: Set<string>): void {
  for (const m of JSON.stringify(v).match(ADDRESS) ?? []) out.add(m.replace(/[.,;:]+$/, "").replace(/\\$/, ""));
}

type Origin = Map<string, string>;

/**
 * Calls every tool, prompt and completion the way a client would and collects the addresses they produce, with where
 * each came from.
 */
async function collect(client: Client): Promise<Origin> {
  const from: Origin = new Map();
  const note = (origin: string, v: unknown) => {
    const s = new Set<string>();
    addressesIn(v, s);
    for (const a of s) if (!from.has(a)) from.set(a, origin);
  };
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
    note(`${name} ${JSON.stringify(args)}`, r.structuredContent ?? r.content);
    return r;
  };
  const lists = ["search_spell", "search_creature", "search_character_option", "search_equipment", "search_rule"];
  for (const tool of lists) {
    await call(tool, { limit: 100 });
    await call(tool, { limit: 100, detail: "full", all_versions: true });
    await call(tool, { limit: 100, documents: ["srd-2014"] });
  }
  await call("search_all", { search: "goblin ogre fire", limit: 50 });
  await call("search_creature", { name: "ogre*", all_versions: true });
  for (const edition of ["2014", "2024"]) {
    await call("build_encounter", {
      party_levels: [3, 3, 4, 5],
      difficulty: edition === "2014" ? "medium" : "moderate",
      edition,
      proposals: 5,
    });
    await call("build_encounter", {
      party_levels: [3, 3, 4, 5],
      difficulty: edition === "2014" ? "medium" : "moderate",
      edition,
      documents: ["srd-2014"],
      proposals: 5,
    });
    await call("build_encounter", {
      party_levels: [5, 5, 5, 5],
      edition,
      monsters: [
        { name: "Ogre", count: 2 },
        { name: "Goblin", count: 3 },
      ],
    });
  }
  const classes = (
    await client.callTool({
      name: "search_character_option",
      arguments: { type: "class", limit: 100, all_versions: true },
    })
  ).structuredContent as { results: Array<{ name: string; document_key: string }> };
  for (const c of classes.results) {
    await call("class_progression", { class: c.name, level_max: 3 });
    await call("class_progression", { class: c.name, documents: [c.document_key], level_max: 3 });
  }
  const prompts = await client.listPrompts();
  for (const p of prompts.prompts) {
    const args: Record<string, string> = {
      party: "4 level-5 characters",
      topic: "grappled",
      name: "Fireball",
      class: "Wizard",
    };
    const wanted = Object.fromEntries(
      (p.arguments ?? []).filter((a) => a.name in args).map((a) => [a.name, args[a.name]!]),
    );
    note(`prompt ${p.name}`, await client.getPrompt({ name: p.name, arguments: wanted }));
  }
  // Completions: the key of every kind, and the class-levels key; each value makes an address.
  for (const kind of ENTITY_KINDS) {
    for (const value of ["", "o", "g", "f", "w"]) {
      const r = await client.complete({
        ref: { type: "ref/resource", uri: "lorekeeper://{kind}/{key}" },
        argument: { name: "key", value },
        context: { arguments: { kind } },
      });
      for (const key of r.completion.values)
        if (!from.has(`lorekeeper://${kind}/${key}`))
          from.set(`lorekeeper://${kind}/${key}`, `completion ${kind} "${value}"`);
    }
  }
  const levels = await client.complete({
    ref: { type: "ref/resource", uri: "lorekeeper://class/{key}/levels" },
    argument: { name: "key", value: "" },
  });
  for (const key of levels.completion.values) from.set(`lorekeeper://class/${key}/levels`, "completion class levels");
  return from;
}

/** The addresses that do not read, each with where it came from and the error. */
async function unreadable(client: Client, from: Origin): Promise<string[]> {
  const bad: string[] = [];
  for (const [uri, origin] of from) {
    try {
      const r = await client.readResource({ uri });
      if (!r.contents.length) bad.push(`${uri} (from ${origin}): empty`);
    } catch (err) {
      bad.push(`${uri} (from ${origin}): ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return bad;
}

async function walk(db: string, name: string): Promise<{ count: number; bad: string[]; sources: Set<string> }> {
  const conn = await connectStdio(["serve", "--db-path", db], env(name));
  try {
    const from = await collect(conn.client);
    const sources = new Set(
      [...from.keys()].map((u) => /^lorekeeper:\/\/[a-z_]+\/([a-z0-9_]+):/.exec(u)?.[1] ?? "bare"),
    );
    return { count: from.size, bad: await unreadable(conn.client, from), sources };
  } finally {
    await conn.close();
  }
}

describe("every address an answer, prompt or completion produces resolves", () => {
  test("after `sync --source open5e_v1` alone (2014 encounter, class_progression and key completions)", async () => {
    const db = await syncedStore("v1", ["open5e_v1"], false);
    const r = await walk(db, "v1");
    expect(r.bad).toEqual([]);
    expect(r.sources.has("open5e_v1")).toBe(true);
    expect(r.count).toBeGreaterThan(100);
  }, 240_000);

  test("on a store synced with every source and an OrcBrew pack", async () => {
    const db = await syncedStore("all", ["open5e_v2", "open5e_v1", "dnd5e_api"], true);
    const r = await walk(db, "all");
    expect(r.bad).toEqual([]);
    expect([...r.sources].sort()).toEqual(["bare", "open5e_v1", "orcbrew"]);
    expect(r.count).toBeGreaterThan(150);
  }, 240_000);
});
