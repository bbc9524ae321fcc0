/**
 * The backpressure attacks at full size, against a spawned server over a
 * generated store of 9,300 entities with realistic text, measuring the server's memory
 * (VmRSS sampled, VmHWM = peak) from /proc (Linux):
 *
 * 1. stdio: after `initialize`, 3,000 calls of search_spell {"limit": 100} sent without reading
 *    stdout (for 10 s), then everything read;
 * 2. HTTP: 80 concurrent POSTs, each a batch of 100 search_all {"query": ..., "limit": 100}, while
 *    /health is timed;
 * 3. HTTP, 2026-07-28 era (no batches): 3 waves of 200 concurrent single search_all calls
 *    (`--http-calls 1 --waves 600`: the same calls one at a time, for comparison).
 *
 * Each attack line is preceded by the same server left idle for as long, so that what the attack
 * adds is seen. The server does no start-up work (no warm-up calls; the model, vector index, name
 * index and compact rows load on first use), so the idle line is its baseline, and the attack's
 * RSS includes whatever its calls load.
 *
 * Usage: bun scripts/attack-memory.ts [--stdio-calls N] [--http-posts N] [--http-calls N] [--waves N]
 *   [--only stdio|http|http2026] [--db STORE (copied; default: the generated store)] [--model-dir DIR].
 * Prints one line per measurement.
 */
import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Entity, EntityKind } from "../src/entities/types.ts";
import { openStore } from "../src/store/db.ts";
import { replaceOrigin } from "../src/store/entities.ts";

const OPTIONS = ["stdio-calls", "http-posts", "http-calls", "waves", "db", "model-dir", "only"] as const;
const { values } = parseArgs({ options: Object.fromEntries(OPTIONS.map((o) => [o, { type: "string" as const }])) }) as {
  values: Partial<Record<(typeof OPTIONS)[number], string>>;
};
const STDIO_CALLS = Number(values["stdio-calls"] ?? 3000);
const HTTP_POSTS = Number(values["http-posts"] ?? 80);
const HTTP_CALLS = Number(values["http-calls"] ?? 200);
const WAVES = Number(values.waves ?? 3);
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
    const desc = Array.from({ length: 60 }, (_, j) => words[(i + j) % words.length])
      .join(" ")
      .repeat(3);
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
const env = {
  ...process.env,
  HOME: dir,
  XDG_DATA_HOME: join(dir, "data"),
  XDG_CACHE_HOME: join(dir, "cache"),
  LOREKEEPER_MODEL_DIR: values["model-dir"] ?? join(dir, "no-model"),
  LOREKEEPER_LOG_LEVEL: "error",
  LOREKEEPER_OPEN5E_BASE_URL: "http://127.0.0.1:9",
  LOREKEEPER_DND5EAPI_BASE_URL: "http://127.0.0.1:9",
};

/** A stdio server given `initialize`, 1.5 s later. */
async function startStdio() {
  const child = spawn(process.execPath, [join(ROOT, "src/cli/main.ts"), "serve", "--db-path", db], {
    env,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const clientInfo = { name: "attack", version: "0" };
  const params = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo };
  const init = { jsonrpc: "2.0", id: 0, method: "initialize", params };
  child.stdin.write(
    `${JSON.stringify(init)}\n${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
  );
  await Bun.sleep(1500);
  return child;
}

/** A stdio server given `initialize` and nothing else, sampled as long as an attack runs: its own peak. */
async function stdioIdle(): Promise<string> {
  const child = await startStdio();
  const base = mem(child.pid!).rss;
  await Bun.sleep(15_000);
  const { rss, hwm } = mem(child.pid!);
  child.kill();
  return `stdio idle: RSS ${mb(base)} after initialize, ${mb(rss)} 15 s later, peak ${mb(hwm)}`;
}

/**
 * `STDIO_CALLS` calls of search_spell {"limit": 100} written at once; with `unread`, stdout is left
 * unread for 10 s first (the attack), else it is read as the answers come (a busy client).
 */
async function stdioCalls(unread: boolean): Promise<string> {
  const child = await startStdio();
  const base = mem(child.pid!).rss;
  let answered = 0;
  let buf = "";
  let allAnswered = () => {};
  const done = new Promise<void>((resolve) => {
    allAnswered = resolve;
  });
  const read = () =>
    child.stdout.on("data", (d: Buffer) => {
      buf += d.toString();
      let nl = buf.indexOf("\n");
      while (nl >= 0) {
        if (buf.slice(0, nl).includes('"structuredContent"')) answered++;
        buf = buf.slice(nl + 1);
        nl = buf.indexOf("\n");
      }
      if (answered === STDIO_CALLS) allAnswered();
    });
  if (!unread) read();
  let flushed = 0;
  for (let i = 1; i <= STDIO_CALLS; i++) {
    const params = { name: "search_spell", arguments: { limit: 100 } };
    const call = { jsonrpc: "2.0", id: i, method: "tools/call", params };
    child.stdin.write(`${JSON.stringify(call)}\n`, () => flushed++);
  }
  let peak = base;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      await Bun.sleep(100);
      peak = Math.max(peak, mem(child.pid!).rss);
    }
  })();
  if (unread) {
    await Bun.sleep(10_000);
    read();
  }
  const takenIn = flushed;
  await done;
  sampling = false;
  await sampler;
  const hwm = mem(child.pid!).hwm;
  child.kill();
  const how = unread ? `unread for 10 s: ${takenIn} accepted by the pipe meanwhile` : "read as answered";
  const rss = `RSS ${mb(base)} after initialize, peak ${mb(Math.max(peak, hwm))}`;
  return `stdio: ${STDIO_CALLS} calls of search_spell {"limit": 100} ${how}; ${rss}; all ${answered} answered`;
}

async function httpAttack(): Promise<string> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(
    process.execPath,
    [join(ROOT, "src/cli/main.ts"), "serve", "--http", "--port", String(port), "--db-path", db],
    { env, stdio: ["ignore", "ignore", "inherit"] },
  );
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(`${base}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await Bun.sleep(100);
  }
  const rss0 = mem(child.pid!).rss;
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "Mcp-Protocol-Version": "2025-06-18",
  };
  const body = (p: number) =>
    JSON.stringify(
      Array.from({ length: 100 }, (_, i) => ({
        jsonrpc: "2.0",
        id: p * 1000 + i,
        method: "tools/call",
        params: { name: "search_all", arguments: { query: "arcane fire storm", limit: 100 } },
      })),
    );
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
  const statuses = await Promise.all(
    Array.from({ length: HTTP_POSTS }, (_, p) =>
      fetch(`${base}/mcp`, { method: "POST", headers, body: body(p) }).then(async (r) => (await r.text(), r.status)),
    ),
  );
  running = false;
  await health;
  const hwm = mem(child.pid!).hwm;
  child.kill();
  const count = (s: number) => statuses.filter((x) => x === s).length;
  return (
    `http: ${HTTP_POSTS} concurrent batches of 100 search_all {"limit": 100}: ` +
    `${count(200)} served, ${count(503)} refused 503 (Retry-After); RSS ${mb(rss0)} idle, ` +
    `peak ${mb(Math.max(peak, hwm))}; slowest /health ${healthMax.toFixed(0)} ms`
  );
}

/** An HTTP server on a free port, once /health answers. */
async function startHttp(): Promise<{ child: ReturnType<typeof spawn>; base: string }> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const args = [join(ROOT, "src/cli/main.ts"), "serve", "--http", "--port", String(port), "--db-path", db];
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "ignore", "inherit"] });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(`${base}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await Bun.sleep(100);
  }
  return { child, base };
}

async function httpIdle(seconds: number): Promise<string> {
  const { child } = await startHttp();
  const rss0 = mem(child.pid!).rss;
  await Bun.sleep(seconds * 1000);
  const { rss, hwm } = mem(child.pid!);
  child.kill();
  return `http idle: RSS ${mb(rss0)} once /health answers, ${mb(rss)} ${seconds} s later, peak ${mb(hwm)}`;
}

/** The 2026-07-28 era has no batches: many concurrent single calls instead. */
async function http2026Attack(): Promise<string> {
  const { child, base } = await startHttp();
  const rss0 = mem(child.pid!).rss;
  const envelope = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "attack", version: "0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/call",
    "Mcp-Name": "search_all",
  };
  const params = (i: number) => ({
    name: "search_all",
    arguments: { query: `arcane fire storm ${i % 7}`, limit: 100 },
    _meta: envelope,
  });
  const body = (i: number) => JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: params(i) });
  const post = (i: number) =>
    fetch(`${base}/mcp`, { method: "POST", headers, body: body(i) }).then(async (r) => (await r.text(), r.status));
  let peak = rss0;
  let running = true;
  const sampler = (async () => {
    while (running) {
      peak = Math.max(peak, mem(child.pid!).rss);
      await Bun.sleep(50);
    }
  })();
  const statuses: number[] = [];
  for (let wave = 0; wave < WAVES; wave++) {
    statuses.push(...(await Promise.all(Array.from({ length: HTTP_CALLS }, (_, i) => post(wave * HTTP_CALLS + i)))));
  }
  running = false;
  await sampler;
  const hwm = mem(child.pid!).hwm;
  child.kill();
  const count = (s: number) => statuses.filter((x) => x === s).length;
  const what = `${WAVES} waves of ${HTTP_CALLS} concurrent single search_all {"limit": 100}`;
  const rss = `RSS ${mb(rss0)} idle, peak ${mb(Math.max(peak, hwm))}`;
  return `http 2026: ${what}: ${count(200)} served, ${count(503)} refused 503; ${rss}`;
}

try {
  if (values.db) {
    // A real store (e.g. one a content pack was loaded into), copied: the attacks never write to it.
    copyFileSync(values.db, db);
  } else {
    const store = openStore({ path: db });
    replaceOrigin(store.db, "open5e_v2:generated", entities(), []);
    store.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    store.close();
  }
  const only = values.only;
  if (!only || only === "stdio") {
    console.log(await stdioIdle());
    console.log(await stdioCalls(true));
    console.log(await stdioCalls(false));
  }
  if (!only || only === "http") {
    console.log(await httpIdle(12));
    console.log(await httpAttack());
  }
  if (!only || only === "http2026") {
    console.log(await httpIdle(12));
    console.log(await http2026Attack());
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
