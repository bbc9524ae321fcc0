/**
 * Whole sessions, as a desktop client runs one: start the server over stdio, run a few calls, stay
 * idle 6 s, then read the server's total CPU (user + sys of every thread since exec, /proc stat)
 * and its peak RSS (VmHWM) before closing it. Three sessions: (a) one name lookup, (b) one meaning
 * search, (c) a 20-call DM session mixing names, lists and three meaning searches. The same
 * questions go to a peer in its own dialect (bench/peer-mix.ts) where it can answer them: the
 * peer has no meaning search, so its (b) and (c) send the same words to its word search.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { readFileSync } from "node:fs";
import { CLOCK_TICKS } from "../lib/cpu.ts";
import { median } from "../lib/stats.ts";
import type { Dialect } from "../peer-mix.ts";

export type SessionKind = "lookup" | "meaning" | "dm20";
export const SESSION_KINDS: readonly SessionKind[] = ["lookup", "meaning", "dm20"];
type Call = [tool: string, args: Record<string, unknown>];

/** One question in each dialect. */
interface Speaker {
  spell(name: string): Call;
  creature(name: string): Call;
  spells(level: number, school: string): Call;
  creaturesOfCr(cr: string): Call;
  meaning(tool: "spell" | "creature", text: string): Call;
}

const SPEAKERS: Record<Dialect, Speaker> = {
  lorekeeper: {
    spell: (name) => ["search_spell", { name }],
    creature: (name) => ["search_creature", { name }],
    spells: (level, school) => ["search_spell", { level, school, limit: 5 }],
    creaturesOfCr: (cr) => ["search_creature", { cr: cr.includes("/") ? cr : Number(cr), limit: 10 }],
    meaning: (tool, text) => [`search_${tool}`, { search: text, limit: 5 }],
  },
  "dnd-oracle": {
    spell: (name) => ["search_spells", { query: name, limit: 5 }],
    creature: (name) => ["search_monsters", { query: name, limit: 10 }],
    spells: (level, school) => ["search_spells", { level, school, limit: 5 }],
    creaturesOfCr: (cr) => ["search_monsters", { cr, limit: 10 }],
    meaning: (tool, text) => [tool === "spell" ? "search_spells" : "search_monsters", { query: text, limit: 5 }],
  },
};

/** The calls of a session in a dialect. Pure. */
export function sessionCalls(kind: SessionKind, dialect: Dialect): Call[] {
  const s = SPEAKERS[dialect];
  if (kind === "lookup") return [s.spell("Fireball")];
  if (kind === "meaning") return [s.meaning("spell", "breathe under water")];
  return [
    s.creature("Goblin"),
    s.creaturesOfCr("1/2"),
    s.creature("Owlbear"),
    s.spell("Fireball"),
    s.meaning("spell", "make a light in a dark cave"),
    s.spells(3, "evocation"),
    s.creature("Lich"),
    s.spell("Counterspell"),
    s.creaturesOfCr("5"),
    s.meaning("creature", "a spirit that possesses people"),
    s.spell("Cure Wounds"),
    s.spells(1, "abjuration"),
    s.creature("Gelatinous Cube"),
    s.spell("Mage Armor"),
    s.creaturesOfCr("2"),
    s.meaning("spell", "breathe under water"),
    s.creature("Adult Red Dragon"),
    s.spell("Detect Magic"),
    s.spells(2, "illusion"),
    s.creature("Skeleton"),
  ];
}

export interface SessionFigures {
  /** Server CPU of the whole session (user + sys since exec), ms. */
  cpuMs: number;
  /** Peak resident memory (VmHWM), MB. */
  peakMb: number;
  /** Spawn → initialize answered, ms (wall). */
  startMs: number;
}

function procFigures(pid: number): { cpuMs: number; peakMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const cpuMs = ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS;
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return { cpuMs, peakMb: hwm ? Number(hwm[1]) / 1024 : Number.NaN };
}

export interface SessionServer {
  command: string;
  args: string[];
  env?: Record<string, string>;
  dialect: Dialect;
}

/** One session of `kind` on a fresh server; idle `idleMs` after the last answer. */
export async function runSession(server: SessionServer, kind: SessionKind, idleMs = 6000): Promise<SessionFigures> {
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    env: server.env ?? getDefaultEnvironment(),
    stderr: "ignore",
  });
  const client = new Client({ name: "lorekeeper-bench", version: "0.0.0" });
  const t0 = performance.now();
  await client.connect(transport);
  const startMs = performance.now() - t0;
  try {
    const pid = transport.pid;
    if (!pid) throw new Error("the server has no pid");
    for (const [name, args] of sessionCalls(kind, server.dialect)) {
      const res = await client.callTool({ name, arguments: args });
      // The peer answers "nothing found" as an error; LoreKeeper must answer every one of these.
      if (res.isError && server.dialect === "lorekeeper")
        throw new Error(
          `${name} ${JSON.stringify(args)} answered an error: ${JSON.stringify(res.content).slice(0, 300)}`,
        );
    }
    await new Promise((r) => setTimeout(r, idleMs));
    return { ...procFigures(pid), startMs };
  } finally {
    await client.close();
  }
}

export interface SessionRow {
  kind: SessionKind;
  server: string;
  cpuMs: number;
  peakMb: number;
  startMs: number;
}

/**
 * `runs` sessions of each kind per server, the servers in turns (order swapped every run, a
 * machine's speed drifts); medians per kind and server.
 */
export async function measureSessions(
  servers: Record<string, SessionServer>,
  runs = 3,
  say: (msg: string) => void = () => {},
): Promise<SessionRow[]> {
  const names = Object.keys(servers);
  const samples = new Map<string, SessionFigures[]>();
  // Not measured: a binary's first start unpacks its model and libraries, and a model's first load
  // optimises its graph and saves it (a few seconds later); the sessions are warm starts.
  for (const name of names) await runSession(servers[name]!, "meaning", 6000);
  for (const kind of SESSION_KINDS) {
    for (let i = 0; i < runs; i++) {
      const order = i % 2 === 0 ? names : [...names].reverse();
      for (const name of order) {
        const f = await runSession(servers[name]!, kind);
        say(
          `session ${kind} ${name}: ${Math.round(f.cpuMs)} ms CPU, ` +
            `${f.peakMb.toFixed(0)} MB peak, initialize ${Math.round(f.startMs)} ms`,
        );
        const key = `${kind}\t${name}`;
        samples.set(key, [...(samples.get(key) ?? []), f]);
      }
    }
  }
  return [...samples].map(([key, fs]) => {
    const [kind, server] = key.split("\t") as [SessionKind, string];
    return {
      kind,
      server,
      cpuMs: median(fs.map((f) => f.cpuMs)),
      peakMb: median(fs.map((f) => f.peakMb)),
      startMs: median(fs.map((f) => f.startMs)),
    };
  });
}

/** The report's table: per session kind, each server's median CPU and peak RSS. Pure. */
export function sessionTable(rows: readonly SessionRow[]): string {
  const out = [
    "| session (start, calls, idle 6 s) | server | CPU s | peak RSS MB | initialize ms |",
    "|---|---|---|---|---|",
  ];
  const label: Record<SessionKind, string> = {
    lookup: "(a) one name lookup",
    meaning: "(b) one meaning search",
    dm20: "(c) 20-call DM session, 3 meaning searches",
  };
  for (const r of rows)
    out.push(
      `| ${label[r.kind]} | ${r.server} | ${(r.cpuMs / 1000).toFixed(2)} ` +
        `| ${r.peakMb.toFixed(0)} | ${Math.round(r.startMs)} |`,
    );
  return out.join("\n");
}
