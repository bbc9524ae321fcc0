/**
 * A new user's first hour, through the real CLI: `doctor` on a fresh install (empty store, no
 * model) warns and exits 0; a model folder that does not load is a failure; `sync` and `doctor`
 * tell the same story about the model; `documents` fits a 100-column terminal.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { fitRows } from "../../src/cli/commands/documents.ts";
import { dataDir, dbPath, envValue, loadConfig } from "../../src/config.ts";
import { table } from "../../src/cli/progress.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { isolatedEnv, REPO_ROOT } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";
import { upstreamEnvAt } from "../../src/sources/index.ts";

const tmp = makeTempDir("lk-first-hour-");
let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeUpstream({ dataDir: join(REPO_ROOT, "test", "fixtures", "upstream") });
});
afterAll(async () => {
  await fake.stop();
  tmp.cleanup();
});

interface Check {
  name: string;
  status: string;
  summary: string;
  fix?: string;
}

/** A fresh user: own HOME and XDG folders, no model configured, never downloads. */
async function freshEnv(name: string): Promise<Record<string, string>> {
  const env = await isolatedEnv(join(tmp.dir, name));
  delete env.LOREKEEPER_MODEL_DIR;
  return { ...env, PATH: process.env.PATH ?? "", LOREKEEPER_OFFLINE: "1", LOREKEEPER_LOG_LEVEL: "warn" };
}

async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn([process.execPath, join(REPO_ROOT, "src/cli/main.ts"), ...args], {
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, out, err] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code, out, err };
}

async function doctor(env: Record<string, string>): Promise<{ code: number; checks: Check[] }> {
  const r = await cli(["doctor", "--offline", "--json"], env);
  return { code: r.code, checks: (JSON.parse(r.out) as { checks: Check[] }).checks };
}

describe("the first hour", () => {
  test("doctor on a fresh install: empty store and no model " +
    "are warnings (exit 0), keyword search named as working", async () => {
    const d = await doctor(await freshEnv("fresh"));
    const model = d.checks.find((c) => c.name === "model")!;
    expect(model.status).toBe("warn");
    expect(model.summary).toContain("keyword search works; semantic search needs an embedding model");
    // The advice names the command that gets a model, not an environment variable the user never set.
    expect(model.fix).toContain("lorekeeper model install");
    expect(model.fix).not.toContain("LOREKEEPER_MODEL_DIR");
    expect(d.checks.find((c) => c.name === "store")!.status).toBe("warn");
    expect(d.code).toBe(0);
  }, 60_000);

  test("a model folder the user named that does not load is a real failure (exit 1)", async () => {
    const env = { ...(await freshEnv("badmodel")), LOREKEEPER_MODEL_DIR: join(tmp.dir, "no-such-model") };
    const d = await doctor(env);
    const model = d.checks.find((c) => c.name === "model")!;
    expect(model.status).toBe("fail");
    expect(model.summary).toContain("no-such-model");
    expect(d.code).toBe(1);
  }, 60_000);

  test("sync and doctor agree on the model state", async () => {
    const env = { ...(await freshEnv("agree")), ...upstreamEnvAt(fake.url) };
    const s = await cli(["sync", "--source", "dnd5e_api"], env);
    expect(s.code).toBe(0);
    const d = await doctor(env);
    const model = d.checks.find((c) => c.name === "model")!;
    expect(model.status).toBe("warn");
    expect(s.out).toContain(model.summary);
    expect(d.checks.find((c) => c.name === "store")!.status).toBe("ok");
    expect(d.code).toBe(0);
  }, 120_000);

  test("documents fits a 100-column terminal, keeping the biggest types", () => {
    const counts = {
      creature: 322,
      spell: 319,
      magic_item: 239,
      rule: 180,
      weapon: 37,
      armor: 13,
      class: 12,
      subclass: 12,
      species: 9,
      feat: 1,
      background: 1,
    };
    const rows = fitRows(
      [
        { key: "srd-2014", name: "Systems Reference Document 5.1", source: "open5e_v2", entities: 1145, counts },
        {
          key: "orcbrew-a-very-long-homebrew-pack-name",
          name: "A Very Long Homebrew Pack Name That Goes On And On",
          source: "orcbrew",
          entities: 12,
          counts: { spell: 12 },
        },
      ],
      100,
    );
    const out = table(["key", "name", "source", "entities", "per type"], rows, new Set([3]));
    for (const line of out.split("\n")) expect(line.length).toBeLessThanOrEqual(100);
    expect(String(rows[0]![4])).toStartWith("creature 322");
    expect(String(rows[0]![4])).toMatch(/\+\d+ more$/);
    expect(rows[1]![4]).toBe("spell 12");
  });

  test("LOREKEEPER_DATA_DIR moves the store; blank values and unfilled ${user_config.…} placeholders ignored", () => {
    const saved = {
      d: process.env.LOREKEEPER_DATA_DIR,
      m: process.env.LOREKEEPER_MODEL_DIR,
      p: process.env.LOREKEEPER_PREFER_DOCUMENTS,
    };
    try {
      process.env.LOREKEEPER_DATA_DIR = join(tmp.dir, "elsewhere");
      expect(dbPath()).toBe(join(tmp.dir, "elsewhere", "lorekeeper.db"));
      const fallback = join(process.env.XDG_DATA_HOME!, "lorekeeper");
      for (const v of ["", "  ", "${user_config.data_folder}"]) {
        process.env.LOREKEEPER_DATA_DIR = v;
        expect(dataDir()).toBe(fallback);
      }
      process.env.LOREKEEPER_MODEL_DIR = "${user_config.model_folder}";
      expect(envValue("LOREKEEPER_MODEL_DIR")).toBeUndefined();
      // A blank document preference in the bundle's settings must not become a document named "${user_config…}".
      process.env.LOREKEEPER_PREFER_DOCUMENTS = "${user_config.document_preference}";
      expect(loadConfig().preferDocuments).toEqual([]);
      process.env.LOREKEEPER_PREFER_DOCUMENTS = "srd-2014, srd-2024";
      expect(loadConfig().preferDocuments).toEqual(["srd-2014", "srd-2024"]);
    } finally {
      for (const [k, v] of [
        ["LOREKEEPER_DATA_DIR", saved.d],
        ["LOREKEEPER_MODEL_DIR", saved.m],
        ["LOREKEEPER_PREFER_DOCUMENTS", saved.p],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});
