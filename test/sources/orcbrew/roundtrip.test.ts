/**
 * Import → embeddings → search, through runSearch and through a real MCP client, over a store that
 * also holds API content; plus the `lorekeeper import` CLI as a subprocess.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { join } from "node:path";
import { embedPending } from "../../../src/ingest/embed.ts";
import { importOrcbrewFiles } from "../../../src/ingest/import-orcbrew.ts";
import { runSearch } from "../../../src/search/hybrid.ts";
import type { SearchQuery } from "../../../src/search/types.ts";
import { closeVectorIndex } from "../../../src/search/index/vector-index.ts";
import type { Store } from "../../../src/store/db.ts";
import { ctxOf, readyProvider, TopicEmbedder } from "../../search/helpers.ts";
import { makeStore } from "../../support/entities.ts";
import { answerOf, connectInMemory, makeDeps, REPO_ROOT } from "../../support/mcp.ts";
import { makeTempDir } from "../../support/tmp.ts";

const FIXTURES = join(import.meta.dir, "../../fixtures/orcbrew");
const provider = readyProvider(new TopicEmbedder());
let store: Store;
let cleanup: () => void;
let client: Client;
let closeClient: () => Promise<void>;

beforeAll(async () => {
  ({ store, cleanup } = makeStore());
  const rep = importOrcbrewFiles(store.db, [join(FIXTURES, "all-types.orcbrew"), join(FIXTURES, "multi-pack.orcbrew")]);
  expect(rep.failed).toBe(0);
  const emb = await embedPending(store, provider);
  expect(emb.embedded).toBeGreaterThanOrEqual(rep.imported);
  ({ client, close: closeClient } = await connectInMemory(makeDeps(store, { embedder: provider })));
  await client.listTools();
});

afterAll(async () => {
  await closeClient();
  closeVectorIndex(store);
  cleanup();
});

const search = (q: Partial<SearchQuery>) => runSearch(ctxOf(store, provider), { kinds: ["spell"], limit: 10, ...q });
const hitNames = (r: Awaited<ReturnType<typeof search>>) =>
  r.hits.map((h) => `${h.entity.name} [${h.entity.document_key}]`);

describe("imported content is found like API content", () => {
  test("documents=[pack key] returns exactly that pack's entities", async () => {
    expect(hitNames(await search({ documents: ["orcbrew-test-forge"] }))).toEqual([
      "Ember Lance [orcbrew-test-forge]",
      "Quiet Chant [orcbrew-test-forge]",
    ]);
    expect(
      hitNames(await search({ kinds: ["creature"], documents: ["orcbrew-frost-pack", "orcbrew-test-forge"] })),
    ).toEqual(["Ash Drake [orcbrew-test-forge]", "Frost Mite [orcbrew-frost-pack]"]);
  });

  test("structured filters work on OrcBrew fields", async () => {
    expect(
      hitNames(
        await search({ filters: { concentration: true, class_key: "sorcerer" }, documents: ["orcbrew-test-forge"] }),
      ),
    ).toEqual(["Ember Lance [orcbrew-test-forge]"]);
    expect(hitNames(await search({ kinds: ["creature"], filters: { cr: "1/2", creature_type: "dragon" } }))).toEqual([
      "Ash Drake [orcbrew-test-forge]",
    ]);
    expect(hitNames(await search({ filters: { ritual: true } }))).toContain("Quiet Chant [orcbrew-test-forge]");
  });

  test("search ranks OrcBrew and API spells together (hybrid, scores in [0,1])", async () => {
    const r = await search({ search: "fire damage lance", limit: 5 });
    expect(r.mode).toBe("hybrid");
    const labels = hitNames(r);
    expect(labels).toContain("Ember Lance [orcbrew-test-forge]");
    expect(labels).toContain("Fireball [srd-2014]");
    for (const h of r.hits) {
      expect(h.similarity_score!).toBeGreaterThan(0);
      expect(h.similarity_score!).toBeLessThanOrEqual(1);
    }
    expect(hitNames(await search({ search: "Ember Lance" }))[0]).toBe("Ember Lance [orcbrew-test-forge]");
    expect(hitNames(await search({ search: "rime bolt" }))[0]).toBe("Rime Bolt [orcbrew-frost-pack]");
  });

  test("the API spell with the same name was not shadowed by the OrcBrew one", async () => {
    const r = await search({ name: "Fireball" });
    expect(r.hits.every((h) => h.entity.document_source !== "orcbrew")).toBe(true);
  });

  test("MCP: search_spell and search_character_option with documents, list_documents(source=orcbrew)", async () => {
    const spells = answerOf(
      await client.callTool({
        name: "search_spell",
        arguments: { search: "frost bolt", documents: ["orcbrew-frost-pack"], detail: "full" },
      }),
    );
    expect(spells.results.map((x) => x.name)).toEqual(["Rime Bolt"]);
    expect(spells.results[0]).toMatchObject({
      document_key: "orcbrew-frost-pack",
      document_name: "Frost Pack",
      document_source: "orcbrew",
    });
    const options = answerOf(
      await client.callTool({
        name: "search_character_option",
        arguments: { documents: ["orcbrew-test-forge"], limit: 50 },
      }),
    );
    expect(options.results.map((x) => x.name).sort()).toEqual(
      [
        "9 Lives",
        "Ash Emberkin",
        "Cinder Oath",
        "Ember Knight",
        "Emberkin",
        "Flame-Touched",
        "Forge Apprentice",
      ].sort(),
    );
    const docs = (await client.callTool({ name: "list_documents", arguments: { source: "orcbrew" } }))
      .structuredContent as {
      documents: Array<{ key: string; name: string; source: string; entity_count: number }>;
    };
    // (the shared sample store also holds a hand-made "homebrew-pack")
    expect(
      docs.documents.filter((d) => d.key.startsWith("orcbrew-")).map((d) => [d.key, d.name, d.entity_count]),
    ).toEqual([
      ["orcbrew-test-forge", "Test Forge", 11],
      ["orcbrew-frost-pack", "Frost Pack", 2], // its "Fireball" clashes with the API Fireball and was skipped
    ]);
    expect(docs.documents.every((d) => d.source === "orcbrew")).toBe(true);
  });
});

describe("lorekeeper import (CLI)", () => {
  const run = async (args: string[]) => {
    const p = Bun.spawn([process.execPath, join(REPO_ROOT, "src/cli/main.ts"), "import", ...args], {
      cwd: FIXTURES,
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, LOREKEEPER_LOG_LEVEL: "warn" },
    });
    const [out, err, code] = await Promise.all([
      new Response(p.stdout).text(),
      new Response(p.stderr).text(),
      p.exited,
    ]);
    return { out, err, code };
  };

  test("exit codes 0 / 2 / 1, summary table, JSON report, dry run", async () => {
    const tmp = makeTempDir("lk-cli-");
    try {
      const db = join(tmp.dir, "lk.db");
      const ok = await run(["namespaced-top.orcbrew", "--db-path", db, "--no-embed"]);
      expect(ok.code).toBe(0);
      expect(ok.out).toMatch(/Night Sky\s+orcbrew-night-sky\s+subraces\s+subspecies\s+1\s+1\s+0/);

      const dry = await run(["all-types.orcbrew", "--dry-run", "--db-path", db]);
      expect(dry.code).toBe(2);
      expect(dry.out).toContain("would import 11 entities");
      expect(dry.out).toContain("levelless (line 36, column 3): the spell has no :level");
      expect(dry.out).toContain("DRY RUN");

      const json = await run(["all-types.orcbrew", "truncated.orcbrew", "--json", "--no-embed", "--db-path", db]);
      expect(json.code).toBe(1);
      const rep = JSON.parse(json.out) as {
        imported: number;
        failed: number;
        exit_code: number;
        files: Array<{ ok: boolean; error?: { line: number; column: number } }>;
      };
      expect(rep.imported).toBe(11);
      expect(rep.failed).toBe(1);
      expect(rep.exit_code).toBe(1);
      expect(rep.files[1]!.error).toMatchObject({ line: 1, column: 89 });

      const broken = await run(["duplicate-key.orcbrew", "--no-embed", "--db-path", db]);
      expect(broken.code).toBe(1);
      expect(broken.out).toContain(
        "duplicate-key.orcbrew: FAILED — line 4, column 4: not valid EDN: duplicate key :twice",
      );
      expect(broken.out + broken.err).not.toContain("    at ");

      expect((await run(["--db-path", db])).code).toBe(64);
    } finally {
      tmp.cleanup();
    }
  }, 30_000);
});
