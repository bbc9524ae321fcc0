/**
 * pack and entity names carrying ANSI/OSC escapes, NULs, C1 controls and bidi
 * overrides never reach a terminal raw: `import`, `documents`, `search` and `doctor` (text and
 * --json) and list_documents format=text print them neutralised (U+FFFD, or \uXXXX in JSON).
 * An OrcBrew import also drops them from names altogether (pack and entity
 * names are stored clean, so no output, tool text, completion or prompt can carry them); texts
 * keep them and are neutralised on output.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openStore } from "../../src/store/db.ts";
import { safeJson, safeLine, safeText } from "../../src/text/sanitize.ts";
import { connectInMemory, isolatedEnv, makeDeps, REPO_ROOT, textOf } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";

// ESC (CSI clear screen, OSC title ending in BEL), NUL, C1 CSI, right-to-left override, DEL.
const HOSTILE = ["\u001b[2J", "\u001b]0;pwned\u0007", "\u0000", "\u009b31m", "\u202e", "\u007f"];
/** The pack name as stored: every control character dropped on import. */
const CLEAN_PACK = "Evil[2J]0;pwned31mPack";
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let db: string;
let packFile: string;

const edn = (s: string) => JSON.stringify(s).replace(/\\u00([0-9a-f]{2})/g, "\\u00$1");

beforeAll(async () => {
  tmp = makeTempDir("lk-ctrl-");
  env = { ...(await isolatedEnv(tmp.dir)), LOREKEEPER_LOG_LEVEL: "warn" };
  // A folder whose name holds an escape too: doctor and documents print the store path.
  const dir = join(tmp.dir, "store\u001b[31m");
  mkdirSync(dir);
  db = join(dir, "lk.db");
  packFile = join(tmp.dir, "evil.orcbrew");
  const packName = `Evil${HOSTILE.join("")}Pack`;
  const spellName = `Fire${HOSTILE.join("")}ball`;
  writeFileSync(
    packFile,
    `{${edn(packName)} {:orcpub.dnd.e5/spells {:evil-fire {:name ${edn(spellName)}, :level 3, :school ` +
      `"evocation", :spell-lists {:wizard true}, :description ${edn(`Flames ${HOSTILE.join(" ")} everywhere.`)}}}}}`,
  );
});

afterAll(() => tmp.cleanup());

/** One CLI run, awaited on its exit (never a fixed wait): several run side by side. */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn([process.execPath, join(REPO_ROOT, "src", "cli", "main.ts"), ...args, "--db-path", db], {
    env,
    cwd: REPO_ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

function expectClean(label: string, s: string) {
  const m = RAW.exec(s);
  expect({ label, raw: m ? JSON.stringify(s.slice(Math.max(0, m.index - 20), m.index + 20)) : null }).toEqual({
    label,
    raw: null,
  });
}

describe("CLI output", () => {
  test("import (text and --json), documents, search, doctor print no control characters", async () => {
    const imported = await cli(["import", packFile, "--no-embed"]);
    expect(imported.code).toBe(0);
    expect(imported.out).toContain(CLEAN_PACK);
    expectClean("import", imported.out + imported.err);
    const json = await cli(["import", packFile, "--no-embed", "--json"]);
    expectClean("import --json", json.out);
    expect(
      (JSON.parse(json.out) as { files: Array<{ packs: Array<{ name: string }> }> }).files[0]!.packs[0]!.name,
    ).toBe(CLEAN_PACK);
    const reads = [
      ["documents"],
      ["documents", "--json"],
      ["search", "flames"],
      ["search", "flames", "--json"],
      ["doctor", "--offline"],
      ["doctor", "--offline", "--json"],
    ];
    const results = await Promise.all(reads.map((args) => cli(args)));
    for (const [i, r] of results.entries()) {
      expect(r.out.length).toBeGreaterThan(0);
      expectClean(reads[i]!.join(" "), r.out + r.err);
    }
    expect(results[2]!.out).toContain("Fire[2J]0;pwned31mball");
    // CLI processes awaited on their exits: seconds alone, several times that on busy cores.
  }, 90_000);
});

describe("MCP text output", () => {
  test("list_documents format=text and its JSON twin show the names as imported: without the controls", async () => {
    const store = openStore({ path: db, readonly: true });
    const conn = await connectInMemory(makeDeps(store));
    try {
      const text = textOf(await conn.client.callTool({ name: "list_documents", arguments: { format: "text" } }));
      expect(text).toContain(CLEAN_PACK);
      expectClean("list_documents text", text);
      const structured = (await conn.client.callTool({ name: "list_documents", arguments: {} })).structuredContent as {
        documents: Array<{ name: string }>;
      };
      expect(structured.documents.some((d) => d.name === CLEAN_PACK)).toBe(true);
      expectClean("list_documents json", JSON.stringify(structured));
    } finally {
      await conn.close();
      store.close();
    }
  });
});

test("the pure helpers: safeText keeps newlines and tabs, safeLine not, safeJson is the same JSON value", () => {
  const s = `a\tb\nc${HOSTILE.join("")}d`;
  expect(safeText(s)).toBe(`a\tb\nc\ufffd[2J\ufffd]0;pwned\ufffd\ufffd\ufffd31m\ufffd\ufffdd`);
  expect(safeLine(s)).not.toMatch(/[\t\n]/);
  const json = JSON.stringify({ s });
  expect(JSON.parse(safeJson(json))).toEqual({ s });
  expectClean("safeJson", safeJson(json));
});
