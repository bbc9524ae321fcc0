/**
 * The two backpressure attacks of issue 17 (item 2) at full size, against a spawned server over a
 * generated store of 9,300 entities with realistic text, measuring the server's memory
 * (VmRSS sampled, VmHWM = peak) from /proc (Linux):
 *
 * 1. stdio: after `initialize`, 3,000 calls of search_spell {"limit": 100} sent without reading
 *    stdout (for 10 s), then everything read;
 * 2. HTTP: 80 concurrent POSTs, each a batch of 100 search_all {"query": ..., "limit": 100}, while
 *    /health is timed.
 *
 * Usage: bun scripts/attack-memory.ts [--stdio-calls N] [--http-posts N]. Prints one line per attack.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Entity, EntityKind } from "../src/entities/types.ts";
import { openStore } from "../src/store/db.ts";
import { replaceOrigin } from "../src/store/entities.ts";

const { values } = parseArgs({ options: { "stdio-calls": { type: "string" }, "http-posts": { type: "string" } } });
const STDIO_CALLS = Number(values["stdio-calls"] ?? 3000);
const HTTP_POSTS = Number(values["http-posts"] ?? 80);
const ROOT = join(import.meta.dir, "..");
const dir = mkdtempSync(join(tmpdir(), "lk-attack-"));
const db = join(dir, "lk.db");

function entities(): Entity[] {
  const kinds: EntityKind[] = ["spell", "creature", "magic_item", "rule", "feat"];
  const words = "arcane force fire storm shadow healing ward blade beast dragon frost venom radiant thunder".split(" ");
  const out: Entity[] = [];
  for (let i = 0; i < 9300; i++) {
    const kind = kinds[i % kinds.length]!;
    const name = `${words[i % words.length]} ${words[(i * 7) % words.length]} ${i}`;
    const desc = Array.from({ length: 60 }, (_, j) => words[(i + j) % words.length]).join(" ").repeat(3);
    out.push({
      kind,
      key: `gen_${kind}_${i}`,
      name,
      document_key: "gen",
      document_name: "Generated",
      document_source: "open5e_v2",
      source_url: `http://127.0.0.1/${kind}/${i}`,
      text: `${name}. ${desc}`,
      filters: kind === "spell" ? { level: i % 10, school: "evocation", classes: ["wizard"] } : {},
      data: { name, desc, higher_level: desc.slice(0, 300) },
    });
  }
  return out;
}

function mem(pid: number): { rss: number; hwm: number } {
  const s = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0) * 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
}

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;
const env = { ...process.env, HOME: dir, XDG_DATA_HOME: join(dir, "data"), XDG_CACHE_HOME: join(dir, "cache"), LOREKEEPER_MODEL_DIR: join(dir, "no-model"), LOREKEEPER_LOG_LEVEL: "error", LOREKEEPER_OPEN5E_BASE_URL: "http://127.0.0.1:9", LOREKEEPER_DND5EAPI_BASE_URL: "http://127.0.0.1:9" };

async function stdioAttack(): Promise<string> {
  const child = spawn(process.execPath, [join(ROOT, "src/cli/main.ts"), "serve", "--db-path", db], { env, stdio: ["pipe", "pipe", "inherit"] });
  const init = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "attack", version: "0" } } };
  child.stdin.write(`${JSON.stringify(init)}\n${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  await Bun.sleep(1500);
  const base = mem(child.pid!).rss;
  let flushed = 0;
  for (let i = 1; i <= STDIO_CALLS; i++) {
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "search_spell", arguments: { limit: 100 } } })}\n`, () => flushed++);
  }
  let peak = base;
  for (let t = 0; t < 100; t++) {
    await Bun.sleep(100);
    peak = Math.max(peak, mem(child.pid!).rss);
  }
  const takenIn = flushed;
  let answered = 0;
  let buf = "";
  await new Promise<void>((resolve) => {
    child.stdout.on("data", (d: Buffer) => {
      buf += d.toString();
      let nl = buf.indexOf("\n");
      while (nl >= 0) {
        if (buf.slice(0, nl).includes('"structuredContent"')) answered++;
        buf = buf.slice(nl + 1);
        nl = buf.indexOf("\n");
      }
      if (answered === STDIO_CALLS) resolve();
    });
  });
  const hwm = mem(child.pid!).hwm;
  child.kill();
  return `stdio: ${STDIO_CALLS} calls of search_spell {"limit": 100} unread for 10 s: ${takenIn} accepted by the pipe meanwhile; RSS ${mb(base)} after initialize, peak ${mb(Math.max(peak, hwm))}; all ${answered} answered once read`;
}

async function httpAttack(): Promise<string> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(process.execPath, [join(ROOT, "src/cli/main.ts"), "serve", "--http", "--port", String(port), "--db-path", db], { env, stdio: ["ignore", "ignore", "inherit"] });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (await fetch(`${base}/health`).then((r) => r.ok, () => false)) break;
    await Bun.sleep(100);
  }
  const rss0 = mem(child.pid!).rss;
  const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Mcp-Protocol-Version": "2025-06-18" };
  const body = (p: number) => JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ jsonrpc: "2.0", id: p * 1000 + i, method: "tools/call", params: { name: "search_all", arguments: { query: "arcane fire storm", limit: 100 } } })));
  let running = true;
  let peak = rss0;
  let healthMax = 0;
  const health = (async () => {
    while (running) {
      const t0 = performance.now();
      await fetch(`${base}/health`).then((r) => r.text());
      healthMax = Math.max(healthMax, performance.now() - t0);
      peak = Math.max(peak, mem(child.pid!).rss);
      await Bun.sleep(50);
    }
  })();
  const statuses = await Promise.all(Array.from({ length: HTTP_POSTS }, (_, p) => fetch(`${base}/mcp`, { method: "POST", headers, body: body(p) }).then(async (r) => (await r.text(), r.status))));
  running = false;
  await health;
  const hwm = mem(child.pid!).hwm;
  child.kill();
  const count = (s: number) => statuses.filter((x) => x === s).length;
  return `http: ${HTTP_POSTS} concurrent batches of 100 search_all {"limit": 100}: ${count(200)} served, ${count(503)} refused 503 (Retry-After); RSS ${mb(rss0)} idle, peak ${mb(Math.max(peak, hwm))}; slowest /health ${healthMax.toFixed(0)} ms`;
}

try {
  const store = openStore({ path: db });
  replaceOrigin(store.db, "open5e_v2:generated", entities(), []);
  store.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  store.close();
  console.log(await stdioAttack());
  console.log(await httpAttack());
} finally {
  rmSync(dir, { recursive: true, force: true });
}
