/**
 * what `lorekeeper import` reads.
 * - A chain of 200,000 `#_` discards is a syntax error with a line and column, not a stack
 *   overflow; in an import of several files, each file's outcome is reported, and the files that
 *   were committed are embedded.
 * - Only regular files are read: /dev/zero and a FIFO are refused at once (no 3.6 GB read, no
 *   wait for a writer); a file over the size limit (LOREKEEPER_IMPORT_MAX_MB) is refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { importOrcbrewFiles } from "../../src/ingest/import-orcbrew.ts";
import { readEdn } from "../../src/sources/orcbrew/edn.ts";
import { openStore } from "../../src/store/db.ts";
import { isolatedEnv, REPO_ROOT } from "../support/mcp.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { makeTempDir } from "../support/tmp.ts";

let tmp: ReturnType<typeof makeTempDir>;
let good: string;
let good2: string;
let chain: string;
let env: Record<string, string>;

const pack = (name: string, spell: string) =>
  `{"${name}" {:orcpub.dnd.e5/spells {:${spell.toLowerCase().replace(/ /g, "-")} ` +
  `{:name "${spell}", :level 1, :school "evocation", :spell-lists {:wizard ` +
  `true}, :description "A bolt of frost and ice that deals cold damage."}}}}`;

beforeAll(async () => {
  tmp = makeTempDir("lk-import-files-");
  good = join(tmp.dir, "good.orcbrew");
  good2 = join(tmp.dir, "good2.orcbrew");
  chain = join(tmp.dir, "discards.orcbrew");
  writeFileSync(good, pack("Good Pack", "Rime Needle"));
  writeFileSync(good2, pack("Other Pack", "Frost Nail"));
  writeFileSync(chain, `{"Bad Pack"\n {:orcpub.dnd.e5/spells {${"#_ ".repeat(200_000)}}}}`);
  env = {
    ...(await isolatedEnv(tmp.dir, await createTinyModel(join(tmp.dir, "model")))),
    LOREKEEPER_LOG_LEVEL: "error",
  };
});

afterAll(() => tmp.cleanup());

describe("EDN discard chains", () => {
  test("200,000 `#_` in a row → a syntax error with line and column, no stack overflow", () => {
    let err: unknown;
    try {
      readEdn(`[1 ${"#_ ".repeat(200_000)}]`);
    } catch (e) {
      err = e;
    }
    expect((err as Error).name).toBe("EdnSyntaxError");
    expect((err as Error).message).toMatch(
      /^line 1, column 4: #_ \(discard\) is not followed by a form to discard \(200000 discards/,
    );
  });

  test("a discard chain that does find its forms discards them all", () => {
    const n = 50_000;
    const value = readEdn(`[${"#_ ".repeat(n)}${"0 ".repeat(n)} 42]`).value as { items: unknown[] };
    expect(value.items).toEqual([42]);
  });

  test("an import of three files where the middle one is bad reports every file; the others are stored", () => {
    const dir = makeTempDir("lk-import-multi-");
    try {
      const store = openStore({ path: join(dir.dir, "lk.db") });
      const report = importOrcbrewFiles(store.db, [good, chain, good2]);
      expect(report.files.map((f) => [f.file, f.ok])).toEqual([
        [good, true],
        [chain, false],
        [good2, true],
      ]);
      expect(report.files[1]!.error?.line).toBe(2);
      expect(report.imported).toBe(2);
      expect(store.db.query("SELECT name FROM entities ORDER BY name").all()).toEqual([
        { name: "Frost Nail" },
        { name: "Rime Needle" },
      ]);
      store.close();
    } finally {
      dir.cleanup();
    }
  });

  test("`lorekeeper import good bad` (CLI): both outcomes reported, the committed file embedded", () => {
    const db = join(tmp.dir, "cli.db");
    const r = Bun.spawnSync(
      [process.execPath, join(REPO_ROOT, "src", "cli", "main.ts"), "import", good, chain, "--json", "--db-path", db],
      { env, cwd: REPO_ROOT, stdout: "pipe", stderr: "pipe" },
    );
    const out = JSON.parse(r.stdout.toString()) as {
      files: Array<{ file: string; ok: boolean; error?: { message: string } }>;
      embeddings: { embedded: number } | null;
    };
    expect(r.exitCode).toBe(1);
    expect(out.files.map((f) => f.ok)).toEqual([true, false]);
    expect(out.files[1]!.error?.message).toContain("#_ (discard)");
    expect(out.embeddings?.embedded).toBe(1);
    const store = openStore({ path: db, readonly: true });
    expect(store.db.query<{ n: number }, []>("SELECT count(*) AS n FROM vectors").get()?.n).toBe(1);
    store.close();
  }, 30_000);
});

describe("only regular files, up to a size limit", () => {
  const cli = (args: string[], extra: Record<string, string> = {}) =>
    Bun.spawnSync(
      [
        process.execPath,
        join(REPO_ROOT, "src", "cli", "main.ts"),
        "import",
        ...args,
        "--json",
        "--no-embed",
        "--db-path",
        join(tmp.dir, "nr.db"),
      ],
      {
        env: { ...env, ...extra },
        cwd: REPO_ROOT,
        stdout: "pipe",
        stderr: "pipe",
        timeout: 20_000,
      },
    );

  test("/dev/zero and a FIFO are refused at once, and the regular file beside them is imported", () => {
    const fifo = join(tmp.dir, "pipe.orcbrew");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    const files = existsSync("/dev/zero") ? ["/dev/zero", fifo, good] : [fifo, good];
    const r = cli(files);
    const out = JSON.parse(r.stdout.toString()) as { files: Array<{ ok: boolean; error?: { message: string } }> };
    expect(out.files.map((f) => f.ok)).toEqual([...files.slice(0, -1).map(() => false), true]);
    if (files.length === 3)
      expect(out.files[0]!.error?.message).toBe(
        "cannot read the file: it is a device; only regular files are imported",
      );
    expect(out.files[files.length - 2]!.error?.message).toBe(
      "cannot read the file: it is a named pipe (FIFO); only regular files are imported",
    );
  }, 30_000);

  test("a file over LOREKEEPER_IMPORT_MAX_MB is refused with the limit and how to raise it", () => {
    const big = join(tmp.dir, "big.orcbrew");
    writeFileSync(big, `{"Big" {:orcpub.dnd.e5/spells {}}}${" ".repeat(20_000)}`);
    const r = cli([big], { LOREKEEPER_IMPORT_MAX_MB: "0.01" });
    const out = JSON.parse(r.stdout.toString()) as { files: Array<{ ok: boolean; error?: { message: string } }> };
    expect(out.files[0]!.ok).toBe(false);
    expect(out.files[0]!.error?.message).toBe(
      "cannot read the file: it is 20 KB; the limit is 10 KB (set LOREKEEPER_IMPORT_MAX_MB to raise it)",
    );
    expect(cli([big], { LOREKEEPER_IMPORT_MAX_MB: "1" }).exitCode).toBe(0);
  }, 30_000);
});
