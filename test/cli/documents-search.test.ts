/**
 * `lorekeeper documents` and `lorekeeper search` after syncing every source (what a DM's
 * questions found: names cut to "System Reference Doc…" so SRD 5.1 and 5.2 looked alike,
 * srd-2014 listed three times after a v1 sync, and the CLI search listing one creature once per
 * book where the tools give one row).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { shortName } from "../../src/cli/commands/documents.ts";
import { documentCell } from "../../src/cli/commands/search.ts";
import { loadConfig } from "../../src/config.ts";
import { runSync } from "../../src/ingest/sync.ts";
import { SOURCES, upstreamsAt } from "../../src/sources/index.ts";
import { openStore } from "../../src/store/db.ts";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { REPO_ROOT } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";

let fake: FakeUpstream;
let tmp: ReturnType<typeof makeTempDir>;
let db: string;

beforeAll(async () => {
  fake = await startFakeUpstream({ dataDir: join(import.meta.dir, "..", "fixtures", "upstream") });
  tmp = makeTempDir("lk-docs-");
  db = join(tmp.dir, "lk.db");
  const store = openStore({ path: db });
  try {
    const config = { ...loadConfig(), ...upstreamsAt(fake.url), httpRetries: 0 };
    await runSync(store, { config, sources: ["open5e_v2", "open5e_v1", "dnd5e_api"], force: true });
  } finally {
    store.close();
  }
});

afterAll(async () => {
  await fake.stop();
  tmp.cleanup();
});

async function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn([process.execPath, join(REPO_ROOT, "src/cli/main.ts"), ...args, "--db-path", db], {
    env: { ...process.env, LOREKEEPER_MODEL_DIR: join(tmp.dir, "no-model"), ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, out, err] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code, out, err };
}

describe("lorekeeper documents", () => {
  test("one row per document (srd-2014 from three sources is one), names that tell SRD 5.1 from 5.2", async () => {
    const r = await cli(["documents"], { COLUMNS: "80" });
    expect(r.code).toBe(0);
    const rows = r.out.split("\n").filter((l) => /^srd-20(14|24)\s/.test(l));
    expect(rows.filter((l) => l.startsWith("srd-2014 ")).length).toBe(1);
    expect(rows.find((l) => l.startsWith("srd-2014 "))).toContain("SRD 5.1");
    expect(rows.find((l) => l.startsWith("srd-2024 "))).toContain("SRD 5.2");
    expect(rows.find((l) => l.startsWith("srd-2014 "))).toContain("v2+api+v1");
    // The legend spells out every short name the table uses, each from its source.
    const legend = r.out.split("\n").find((l) => l.startsWith("sources: "));
    for (const s of SOURCES) expect(legend).toContain(`${s.short} = ${s.homebrew?.legend ?? s.label}`);
  }, 60_000);

  test("a row's document cell names each other document once, never its own again", () => {
    expect(documentCell("srd-2014", [{ document_key: "srd-2014" }, { document_key: "SRD-2014" }])).toBe("srd-2014");
    expect(
      documentCell("srd-2014", [
        { document_key: "srd-2024" },
        { document_key: "srd-2014" },
        { document_key: "srd-2024" },
      ]),
    ).toBe("srd-2014 (+srd-2024)");
    expect(documentCell("tob", [])).toBe("tob");
  });

  test("a name cut short keeps its last word", () => {
    expect(shortName("System Reference Document 5.1", 12)).toBe("SRD 5.1");
    expect(shortName("Tome of Beasts 2023", 14)).toBe("Tome of… 2023");
    expect(shortName("A Very Long Homebrew Collection Name", 12)).toBe("A Very… Name");
  });
});

describe("lorekeeper search", () => {
  test("collapses like the tools: Fireball is one row naming the other books; --all-versions shows each", async () => {
    const r = await cli(["search", "fireball", "--type", "spell"]);
    expect(r.code).toBe(0);
    const fireballs = r.out.split("\n").filter((l) => l.startsWith("Fireball "));
    expect(fireballs.length).toBe(1);
    expect(fireballs[0]).toContain("srd-2024 (+");
    const all = await cli(["search", "fireball", "--type", "spell", "--all-versions"]);
    expect(all.out.split("\n").filter((l) => l.startsWith("Fireball ")).length).toBeGreaterThan(1);
    // The server's preference picks the version here too.
    const old = await cli(["search", "fireball", "--type", "spell"], { LOREKEEPER_PREFER_DOCUMENTS: "srd-2014" });
    expect(old.out.split("\n").find((l) => l.startsWith("Fireball "))).toContain("srd-2014 (+");
  }, 60_000);
});
