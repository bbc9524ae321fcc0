/**
 * The .mcpb bundle: manifest derived from the tool registry, validated and packed by Anthropic's
 * MCPB CLI, unpacked again by the same CLI, and the unpacked bundle started the way a host starts
 * it (`mcp_config` with `${__dirname}` filled, `user_config` placeholders left unfilled) and
 * spoken to with a real MCP client. The bundled executable is a stand-in that runs this checkout
 * (`bun src/cli/main.ts`), so the test stays fast; `bun run build` bundles the compiled binary.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  bundleFileName,
  ICON_PATH,
  MCPB_MANIFEST_VERSION,
  mcpbManifest,
  packMcpb,
  runMcpbCli,
} from "../../packaging/mcpb.ts";
import { APP_VERSION } from "../../src/config.ts";
import { PROMPTS } from "../../src/server/features/prompts.ts";
import { TOOLS } from "../../src/tools/index.ts";
import { drawIcon } from "../../scripts/make-icon.ts";
import { isolatedEnv, REPO_ROOT } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";

const tmp = makeTempDir("lk-mcpb-");
afterAll(() => tmp.cleanup());
const REPO_URL = "https://github.com/example/lorekeeper";

/** A stand-in for the compiled binary: same arguments, runs the checkout. */
function standIn(): string {
  const p = join(tmp.dir, "stand-in");
  Bun.spawnSync([
    "sh",
    "-c",
    `printf '#!/bin/sh\\nexec "%s" "%s" "$@"\\n' "$0" "$1" > "$2"`,
    process.execPath,
    join(REPO_ROOT, "src", "cli", "main.ts"),
    p,
  ]);
  chmodSync(p, 0o755);
  return p;
}

describe(".mcpb bundle", () => {
  test(
    "the manifest lists every registered tool, this version, " + "the stable manifest version and the user settings",
    async () => {
      const m = mcpbManifest({
        version: APP_VERSION,
        target: "darwin-arm64",
        tools: TOOLS,
        repositoryUrl: REPO_URL,
      }) as {
        manifest_version: string;
        version: string;
        tools: { name: string; description: string }[];
        server: { type: string; entry_point: string; mcp_config: { command: string; env: Record<string, string> } };
        user_config: Record<string, unknown>;
        compatibility: { platforms: string[] };
        icon: string;
        prompts: { name: string; description: string; arguments: string[]; text: string }[];
      };
      expect(m.tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
      // The prompts too, each with its arguments; a required argument appears as a placeholder.
      expect(m.prompts.map((p) => p.name)).toEqual(PROMPTS.map((p) => p.name));
      const card = m.prompts.find((p) => p.name === "spell_card")!;
      expect(card.arguments).toContain("name");
      expect(card.text).toContain("${arguments.name}");
      for (const p of m.prompts) expect(p.text).not.toContain("undefined");
      for (const t of m.tools) expect(t.description.length).toBeGreaterThan(10);
      expect(m.version).toBe(APP_VERSION);
      expect(m.server.type).toBe("binary");
      expect(m.server.mcp_config.command).toBe("${__dirname}/server/lorekeeper");
      expect(Object.keys(m.user_config).sort()).toEqual(["data_folder", "document_preference", "model_folder"]);
      expect(Object.values(m.server.mcp_config.env)).toEqual([
        "${user_config.data_folder}",
        "${user_config.document_preference}",
        "${user_config.model_folder}",
      ]);
      expect(m.compatibility.platforms).toEqual(["darwin"]);
      const win = mcpbManifest({
        version: APP_VERSION,
        target: "windows-x64",
        tools: TOOLS,
        repositoryUrl: REPO_URL,
      }) as typeof m;
      expect(win.server.entry_point).toBe("server/lorekeeper.exe");
      // "Current": the newest manifest version the pinned CLI calls latest (its stable schema).
      const pkgDir = join(REPO_ROOT, "node_modules", "@anthropic-ai", "mcpb");
      const latest = (await Bun.file(join(pkgDir, "schemas", "mcpb-manifest-latest.schema.json")).json()) as {
        properties: { manifest_version: { const: string } };
      };
      expect(MCPB_MANIFEST_VERSION).toBe(latest.properties.manifest_version.const);
    },
  );

  test("the icon is the generated 512×512 PNG drawn by scripts/make-icon.ts", async () => {
    const bytes = await Bun.file(ICON_PATH).bytes();
    const dv = new DataView(bytes.buffer, bytes.byteOffset);
    expect([dv.getUint32(16), dv.getUint32(20)]).toEqual([512, 512]);
    expect(Buffer.from(drawIcon()).equals(Buffer.from(bytes))).toBe(true);
  }, 30_000);

  test("the official CLI rejects a broken manifest (the validation is real)", async () => {
    const dir = join(tmp.dir, "broken");
    mkdirSync(dir, { recursive: true });
    const m = mcpbManifest({
      version: APP_VERSION,
      target: "linux-x64",
      tools: TOOLS,
      repositoryUrl: REPO_URL,
    }) as Record<string, unknown>;
    await Bun.write(
      join(dir, "manifest.json"),
      JSON.stringify({ ...m, server: { ...(m.server as object), type: "executable" } }),
    );
    const r = runMcpbCli(["validate", join(dir, "manifest.json")]);
    expect(r.ok).toBe(false);
    expect(r.output).toContain("server");
  }, 30_000);

  test("packed by the CLI, unpacked by the CLI, started as a host would: tools/list answers", async () => {
    const out = join(tmp.dir, "dist");
    const r = await packMcpb({
      version: APP_VERSION,
      target: "linux-x64",
      tools: TOOLS,
      repositoryUrl: REPO_URL,
      binary: standIn(),
      outdir: out,
      workDir: join(tmp.dir, "work"),
    });
    expect(r.path).toBe(join(out, bundleFileName(APP_VERSION, "linux-x64")));
    expect(r.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(runMcpbCli(["info", r.path]).ok).toBe(true);

    const unpacked = join(tmp.dir, "unpacked");
    const u = runMcpbCli(["unpack", r.path, unpacked]);
    expect(u.ok).toBe(true);
    const manifest = (await Bun.file(join(unpacked, "manifest.json")).json()) as {
      server: { mcp_config: { command: string; args: string[]; env: Record<string, string> } };
      tools: { name: string }[];
    };
    expect(existsSync(join(unpacked, "icon.png"))).toBe(true);
    const cmd = manifest.server.mcp_config.command.replace("${__dirname}", unpacked);
    expect(statSync(cmd).mode & 0o111).not.toBe(0); // the executable bit survives the zip

    // The host leaves the blank settings as literal placeholders: the server must still start.
    const home = join(tmp.dir, "home");
    mkdirSync(home, { recursive: true });
    const transport = new StdioClientTransport({
      command: cmd,
      args: manifest.server.mcp_config.args,
      env: {
        ...getDefaultEnvironment(),
        ...(await isolatedEnv(home)),
        ...manifest.server.mcp_config.env,
        LOREKEEPER_LOG_LEVEL: "warn",
      },
      stderr: "pipe",
    });
    const client = new Client({ name: "mcpb-host", version: "0.0.0" });
    await client.connect(transport);
    try {
      const listed = await client.listTools();
      expect(listed.tools.map((t) => t.name)).toEqual(manifest.tools.map((t) => t.name));
      await client.callTool({ name: "list_documents", arguments: {} });
      // The unfilled data-folder placeholder fell back to the default store folder.
      expect(existsSync(join(home, "data", "lorekeeper", "lorekeeper.db"))).toBe(true);
    } finally {
      await client.close();
    }
  }, 60_000);
});
