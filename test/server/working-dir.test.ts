/**
 * Hosts start stdio servers in folders nobody chose (Claude Desktop on Windows: system32) and some
 * (the MCP Inspector) with an almost empty environment. The server must work from `/` and from a
 * folder it cannot write (/proc), write nothing there, and read paths from the environment as
 * home-relative ("~/x", "x"), never cwd-relative.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { envPath } from "../../src/config.ts";
import { REPO_ROOT, TOOL_NAMES } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";

const tmp = makeTempDir("lk-cwd-");
afterAll(() => tmp.cleanup());

/** Only what a bare host passes: no XDG folders, no LOREKEEPER_* but the ones given. */
function bareEnv(extra: Record<string, string>): Record<string, string> {
  return { HOME: tmp.dir, LOREKEEPER_OFFLINE: "1", LOREKEEPER_LOG_LEVEL: "warn", ...extra };
}

async function listAndCall(cwd: string, env: Record<string, string>): Promise<string[]> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(REPO_ROOT, "src/cli/main.ts"), "serve"],
    cwd,
    env,
    stderr: "pipe",
  });
  const client = new Client({ name: "cwd-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name);
    const r = await client.callTool({ name: "list_documents", arguments: {} });
    expect(r.isError ?? false).toBe(false);
    return tools;
  } finally {
    await client.close();
  }
}

describe("working folder and environment", () => {
  test("from / with a bare environment: tools answer, nothing is written to /, the store is under HOME", async () => {
    const before = readdirSync("/").sort();
    const tools = await listAndCall("/", bareEnv({}));
    expect(tools).toEqual([...TOOL_NAMES]);
    expect(readdirSync("/").sort()).toEqual(before);
    expect(existsSync(join(tmp.dir, ".local", "share", "lorekeeper", "lorekeeper.db"))).toBe(true);
  }, 60_000);

  test("from a folder nobody can write (/proc), with a relative LOREKEEPER_DATA_DIR: taken from HOME", async () => {
    const tools = await listAndCall("/proc", bareEnv({ LOREKEEPER_DATA_DIR: "lk-relative" }));
    expect(tools).toEqual([...TOOL_NAMES]);
    expect(existsSync(join(tmp.dir, "lk-relative", "lorekeeper.db"))).toBe(true);
  }, 60_000);

  test("environment paths: ~ and relative paths are home-relative, absolute ones stay", () => {
    const prev = process.env.HOME;
    process.env.HOME = "/home/dm";
    try {
      expect(envPath("~")).toBe("/home/dm");
      expect(envPath("~/lk")).toBe("/home/dm/lk");
      expect(envPath("lk/data")).toBe("/home/dm/lk/data");
      expect(envPath("/srv/lk")).toBe("/srv/lk");
    } finally {
      process.env.HOME = prev;
    }
  });
});
