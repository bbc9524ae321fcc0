/**
 * MCP Apps cards on the wire (no browser needed; the rendering is in cards-browser.test.ts): the
 * card tools link their card in tools/list, resources/read serves each as a self-contained
 * `text/html;profile=mcp-app` page within its size budget, the other tools link nothing, and the
 * cards stay out of resources/list.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { makeStore } from "../support/entities.ts";
import { connectInMemory, makeDeps } from "../support/mcp.ts";

let client: Client;
let close: () => Promise<void>;
let cleanup: () => void;
beforeAll(async () => {
  const made = makeStore();
  cleanup = made.cleanup;
  ({ client, close } = await connectInMemory(makeDeps(made.store)));
});
afterAll(async () => {
  await close();
  cleanup();
});

const LINKED: Record<string, string> = {
  search_creature: "ui://lorekeeper/creature.html",
  search_spell: "ui://lorekeeper/spell.html",
  search_equipment: "ui://lorekeeper/item.html",
  build_encounter: "ui://lorekeeper/encounter.html",
  class_progression: "ui://lorekeeper/class.html",
};

test("tools/list links the card tools to their ui:// resource, and only those", async () => {
  const { tools } = await client.listTools();
  for (const t of tools) {
    const uri = LINKED[t.name];
    if (uri) expect(t._meta).toEqual({ ui: { resourceUri: uri } });
    else expect(t._meta).toBeUndefined();
  }
});

test("each card is one self-contained mcp-app page of at most 50 KB that fetches nothing", async () => {
  for (const uri of Object.values(LINKED)) {
    const { contents } = await client.readResource({ uri });
    expect(contents).toHaveLength(1);
    const c = contents[0] as { uri: string; mimeType: string; text: string };
    expect(c.uri).toBe(uri);
    expect(c.mimeType).toBe("text/html;profile=mcp-app");
    expect(Buffer.byteLength(c.text)).toBeLessThanOrEqual(50_000);
    expect(c.text).toStartWith("<!doctype html>");
    expect(c.text).toContain("default-src 'none'");
    // Nothing to load: no URL, no src/href attribute, no @import or url() in the CSS.
    expect(c.text).not.toMatch(/https?:\/\/|\bsrc=|\bhref=|@import|url\(/);
    // Content goes in as text only.
    expect(c.text).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
  }
});

test("an unknown ui:// address is a clear not-found error; resources/list is unchanged", async () => {
  await expect(client.readResource({ uri: "ui://lorekeeper/dragon.html" })).rejects.toThrow(/not found/);
  const { resources } = await client.listResources();
  expect(resources.map((r) => r.uri)).toEqual(["lorekeeper://documents"]);
});
