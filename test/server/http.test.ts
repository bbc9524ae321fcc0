/**
 * Streamable HTTP on Elysia, in-process on 127.0.0.1:0, driven by the SDK's Client and by raw
 * fetch: stateless requests, bearer auth, Host/Origin allowlists, body limit, /health, several
 * clients at once.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type HttpServerHandle, startHttpServer } from "../../src/server/transports/http.ts";
import { makeStore } from "../support/entities.ts";
import { connectHttp, makeDeps, namesOf, TOOL_NAMES } from "../support/mcp.ts";

// Real searches through a real HTTP server in this process: on a loaded machine (nice 19 beside a
// second suite) one test took 9 s, so every test here gets 30 s; none waits on a clock.
setDefaultTimeout(30_000);

const TOKEN = "test-token-123";
let open: HttpServerHandle;
let secured: HttpServerHandle;
let cleanup: () => void;

beforeAll(async () => {
  const made = makeStore();
  cleanup = made.cleanup;
  const deps = makeDeps(made.store);
  open = await startHttpServer(deps, { port: 0 });
  secured = await startHttpServer(deps, {
    port: 0,
    token: TOKEN,
    allowedOrigins: ["https://app.example.com"],
    allowedHosts: ["lorekeeper.lan"],
    maxBodyBytes: 64 * 1024,
  });
});

afterAll(async () => {
  await open.stop();
  await secured.stop();
  cleanup();
});

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
};

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

describe("stopping", () => {
  test("a client stuck in the middle of its request does not hold the stop past its grace", async () => {
    const made = makeStore();
    const h = await startHttpServer(makeDeps(made.store), { port: 0, stopGraceMs: 300 });
    // Headers and a body that never arrives in full: Bun's graceful stop would wait for it.
    const sock = await Bun.connect({ hostname: "127.0.0.1", port: h.port, socket: { data() {} } });
    try {
      sock.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${h.port}\r\nContent-Type: application/json\r\nAccept: ` +
          `application/json, text/event-stream\r\nContent-Length: 200\r\n\r\n{"jsonrpc":`,
      );
      await Bun.sleep(100);
      const t0 = performance.now();
      await h.stop();
      expect(performance.now() - t0).toBeLessThan(5_000);
    } finally {
      sock.end();
      made.cleanup();
    }
  }, 15_000);
});

describe("HTTP transport", () => {
  test("a client lists the tools and calls them", async () => {
    const { client, close } = await connectHttp(open.url);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
      expect(
        namesOf(await client.callTool({ name: "search_spell", arguments: { name: "fire*", documents: ["srd-2014"] } })),
      ).toEqual(["Fire Bolt", "Fire Shield", "Fireball"]);
      const r = await client.readResource({ uri: "lorekeeper://creature/srd_goblin" });
      expect(JSON.parse((r.contents[0] as { text: string }).text).name).toBe("Goblin");
    } finally {
      await close();
    }
  });

  test("encounters, class tables, prompts and completions over HTTP", async () => {
    const { client, close } = await connectHttp(open.url);
    try {
      const enc = await client.callTool({
        name: "build_encounter",
        arguments: { party_size: 4, party_level: 5, edition: "2014", monsters: [{ name: "Goblin", count: 8 }] },
      });
      // 8 × 50 = 400 XP × 2.5 = 1,000: exactly the Easy threshold of four level-5 characters
      expect((enc.structuredContent as { rating: unknown }).rating).toMatchObject({
        total_xp: 400,
        multiplier: 2.5,
        adjusted_xp: 1000,
        difficulty: "easy",
      });
      const prop = await client.callTool({
        name: "build_encounter",
        arguments: { party_levels: [5, 5, 5], difficulty: "moderate", type: "undead" },
      });
      const proposals = (prop.structuredContent as { proposals: Array<{ difficulty: string }> }).proposals;
      expect(proposals.length).toBeGreaterThan(0);
      for (const p of proposals) expect(p.difficulty).toBe("moderate");
      const cls = await client.callTool({ name: "class_progression", arguments: { class: "Wizard", level_max: 5 } });
      expect(
        (cls.structuredContent as { levels: Array<{ proficiency_bonus: string }> }).levels.map(
          (l) => l.proficiency_bonus,
        ),
      ).toEqual(["+2", "+2", "+2", "+2", "+3"]);
      expect((await client.listPrompts()).prompts.length).toBeGreaterThanOrEqual(5);
      const p = await client.getPrompt({ name: "explain_rule", arguments: { topic: "grappling" } });
      expect(JSON.stringify(p.messages)).toContain("search_rule");
      const c = await client.complete({
        ref: { type: "ref/resource", uri: "lorekeeper://{kind}/{key}" },
        argument: { name: "key", value: "fire" },
        context: { arguments: { kind: "spell" } },
      });
      expect(c.completion.values.length).toBeGreaterThan(1);
      expect(c.completion.total).toBe(c.completion.values.length);
    } finally {
      await close();
    }
  });

  test("several clients at once", async () => {
    const clients = await Promise.all(Array.from({ length: 5 }, () => connectHttp(secured.url, TOKEN)));
    try {
      const queries = ["Goblin", "Vampire", "Wraith", "Kobold", "Zombie"];
      const answers = await Promise.all(
        clients.map((c, i) => c.client.callTool({ name: "search_creature", arguments: { name: queries[i] } })),
      );
      expect(answers.map((a) => namesOf(a)[0])).toEqual(queries);
      const docs = await Promise.all(clients.map((c) => c.client.callTool({ name: "list_documents", arguments: {} })));
      for (const d of docs) expect((d.structuredContent as { count: number }).count).toBe(4);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });

  test("GET /health: status, counts per kind, model state", async () => {
    const res = await fetch(open.url.replace(/\/mcp$/, "/health"));
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      status: string;
      counts: Record<string, number>;
      entities: number;
      model: string;
    };
    expect(body.status).toBe("ok");
    expect(body.counts.creature).toBe(9);
    expect(body.entities).toBe(Object.values(body.counts).reduce((a, b) => a + b, 0));
    expect(body.model).toBe("unavailable");
  });

  test("stateless: GET and DELETE on /mcp answer 405; unknown paths 404", async () => {
    const get = await fetch(open.url, { headers: { Accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect((await fetch(open.url, { method: "DELETE" })).status).toBe(405);
    expect((await fetch(open.url.replace(/\/mcp$/, "/nope"))).status).toBe(404);
  });
});

describe("HTTP security", () => {
  test("no token or a wrong token → 401 with WWW-Authenticate; the right token works", async () => {
    const none = await post(secured.url, INIT);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect((await post(secured.url, INIT, { Authorization: "Bearer wrong" })).status).toBe(401);
    expect((await post(secured.url, INIT, { Authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    const ok = await post(secured.url, INIT, { Authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('"serverInfo"');
    await expect(connectHttp(secured.url)).rejects.toThrow();
    const { client, close } = await connectHttp(secured.url, TOKEN);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
    await close();
  });

  test("a foreign Origin or Host → 403; loopback and configured ones pass", async () => {
    const auth = { Authorization: `Bearer ${TOKEN}` };
    expect((await post(secured.url, INIT, { ...auth, Origin: "https://evil.example" })).status).toBe(403);
    expect((await post(secured.url, INIT, { ...auth, Origin: "http://localhost:5173" })).status).toBe(200);
    expect((await post(secured.url, INIT, { ...auth, Origin: "https://app.example.com" })).status).toBe(200);
    expect((await post(secured.url, INIT, { ...auth, Host: "evil.example" })).status).toBe(403);
    expect((await post(secured.url, INIT, { ...auth, Host: `lorekeeper.lan:${secured.port}` })).status).toBe(200);
    expect(
      (await fetch(secured.url.replace(/\/mcp$/, "/health"), { headers: { Host: "rebind.example" } })).status,
    ).toBe(403);
  });

  test("a body over the limit → 413", async () => {
    const big = JSON.stringify({ ...INIT, params: { ...INIT.params, padding: "x".repeat(100 * 1024) } });
    const res = await post(secured.url, big, { Authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(413);
    expect(await res.text()).toContain("too large");
  });

  test("a tool error over HTTP is still a friendly tool result", async () => {
    const { client, close } = await connectHttp(open.url);
    try {
      const r = await client.callTool({ name: "search_rule", arguments: { rule_type: "nonsense" } });
      expect(r.isError).toBe(true);
      expect(JSON.stringify(r.content)).toContain("Valid values: rule, rule-section");
    } finally {
      await close();
    }
  });
});
