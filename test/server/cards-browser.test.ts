/**
 * The MCP Apps cards in a real browser: real tool answers (a sync from a fake Open5e over trimmed
 * real records, a homebrew pack imported through the OrcBrew importer, the real MCP client) are
 * posted to each card the way MCP Apps hosts do (test/support/card-host.ts). Checked: the stat
 * block / spell / item text, no console errors, no network request, and hostile homebrew shown as
 * inert text. Screenshots go to docs/cards/ when LK_CARD_SCREENSHOTS=1 (docs/cards.md shows them);
 * otherwise each is compared with the committed one: same width, height within 15% (fonts differ
 * between machines, so pixels are not compared; a lost or doubled section shows in the height).
 *
 * Skipped, with the reason, where /usr/bin/chromium or playwright-core is absent (CI).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { loadConfig } from "../../src/config.ts";
import { importOrcbrewText } from "../../src/ingest/import-orcbrew.ts";
import { runSync } from "../../src/ingest/sync.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { cardBrowser, renderCard, type Rendered } from "../support/card-host.ts";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { connectInMemory, makeDeps, REPO_ROOT } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";
import { upstreamsAt } from "../../src/sources/index.ts";

const launched = await cardBrowser();
const reason = "reason" in launched ? launched.reason : null;
if (reason) console.warn(`cards-browser.test.ts skipped: ${reason}`);
const browser: Browser | null = "browser" in launched ? launched.browser : null;
const SHOTS = process.env.LK_CARD_SCREENSHOTS === "1";

const HOSTILE = '<script>parent.pwned=1</script><img src=x onerror="parent.pwned=1">';
const hostilePack = (name: string) =>
  `{:orcpub.dnd.e5/monsters
 {:evil {:key :evil :name ${JSON.stringify(name)} :option-pack "Evil <b>Pack</b>" ` +
  `:size :small :type :fiend :alignment "<i>chaotic</i>"
   :armor-class 12 :hit-points {:die 6 :die-count ` +
  `2 :modifier 0} :speed "30 ft." :str 10 :dex 14 :con 10 :int 10 :wis 10 :cha 10
   :challenge 1 :description ` +
  `${JSON.stringify(`[click me](javascript:parent.pwned=1) ${HOSTILE} **bold**`)}
   :traits [{:name ` +
  `${JSON.stringify(`<a href="javascript:parent.pwned=1">Trap</a>`)} :description ${JSON.stringify(HOSTILE)}}]}}}`;

describe.skipIf(!browser)("MCP Apps cards in headless Chromium", () => {
  let fake: FakeUpstream;
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  let client: Client;
  let close: () => Promise<void>;
  const html: Record<string, string> = {};
  beforeAll(async () => {
    fake = await startFakeUpstream({ dataDir: join(REPO_ROOT, "test", "fixtures", "cards") });
    tmp = makeTempDir("lk-cards-");
    store = openStore({ path: join(tmp.dir, "lk.db") });
    const config = { ...loadConfig(), ...upstreamsAt(fake.url), httpRetries: 0 };
    await runSync(store, {
      config,
      sources: ["open5e_v2"],
      types: ["creatures", "spells", "magicitems", "classes"],
      force: true,
    });
    const imported = importOrcbrewText(store.db, hostilePack(`Imp ${HOSTILE}`), "evil.orcbrew");
    expect(imported.ok).toBe(true);
    ({ client, close } = await connectInMemory(makeDeps(store)));
    for (const name of ["creature", "spell", "item", "encounter", "class"]) {
      const r = await client.readResource({ uri: `ui://lorekeeper/${name}.html` });
      html[name] = (r.contents[0] as { text: string }).text;
    }
  }, 60_000);
  afterAll(async () => {
    await close?.();
    store?.close();
    await fake?.stop();
    tmp?.cleanup();
    await browser?.close();
  });

  const call = (name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: { detail: "full", ...args } });
  async function show(
    card: string,
    result: unknown,
    shot: string | null,
    opts: { theme?: "light" | "dark"; width?: number } = {},
  ): Promise<{ text: string; r: Rendered }> {
    const r = await renderCard(browser!, html[card]!, result, opts);
    const text = await r.frame.locator("#root").innerText();
    if (shot) await screenshot(r, shot);
    expect(r.consoleErrors).toEqual([]);
    expect(r.requests).toEqual([]);
    await r.page.close();
    return { text, r };
  }

  test("a 2014 creature: the classic stat block", async () => {
    const { text } = await show("creature", await call("search_creature", { name: "Goblin" }), "creature-2014");
    for (const s of [
      "Goblin",
      "Small humanoid",
      "Armor Class 15 (leather armor, shield)",
      "Hit Points 7 (2d6)",
      "DEX",
      "14 (+2)",
      "Skills Stealth +6",
      "Challenge 1/4 (50 XP)",
      "Nimble Escape",
      "Scimitar",
      "System Reference Document 5.1 (srd-2014)",
      "2014 rules",
    ])
      expect(text).toContain(s);
  }, 30_000);

  test("a 2024 creature, in the dark theme at a narrow width", async () => {
    const { text } = await show(
      "creature",
      await call("search_creature", { name: "Owlbear" }),
      "creature-2024-dark-narrow",
      { theme: "dark", width: 360 },
    );
    for (const s of ["Owlbear", "2024 rules", "System Reference Document 5.2", "Multiattack"])
      expect(text).toContain(s);
  }, 30_000);

  test("a legendary creature: legendary actions with their costs", async () => {
    const { text } = await show(
      "creature",
      await call("search_creature", { name: "Adult Red Dragon" }),
      "creature-legendary",
    );
    for (const s of [
      "STR",
      "27 (+8)",
      "Saving Throws Dexterity +6",
      "Challenge 17 (18,000 XP)",
      "Legendary Actions",
      "Wing Attack (Costs 2 Actions).",
      "Fire Breath (Recharge 5–6).",
    ])
      expect(text).toContain(s);
  }, 30_000);

  test("a spell and an item", async () => {
    const spell = (await show("spell", await call("search_spell", { name: "Fireball" }), "spell")).text;
    for (const s of [
      "Fireball",
      "3rd-level evocation",
      "Casting Time 1 action",
      "Range 150 feet",
      "Components V, S, M (a ball of bat guano and sulfur)",
      "At Higher Levels.",
      "2024 rules",
    ])
      expect(spell).toContain(s);
    const item = (await show("item", await call("search_equipment", { name: "Flame Tongue (Longsword)" }), "item"))
      .text;
    for (const s of ["Flame Tongue (Longsword)", "rare (requires attunement)", "Damage 1d8 slashing", "2014 rules"])
      expect(item).toContain(s);
  }, 30_000);

  test("an encounter: party, budgets as a bar with the difficulty lit, XP arithmetic (2014 multiplier)", async () => {
    const args = {
      party_levels: [3, 3, 4, 4],
      edition: "2014",
      documents: ["srd-2014"],
      monsters: [
        { name: "Goblin", count: 4 },
        { name: "Adult Red Dragon", count: 1 },
      ],
    };
    const { text, r } = await show(
      "encounter",
      await client.callTool({ name: "build_encounter", arguments: args }),
      "encounter",
    );
    for (const s of [
      "Encounter",
      "2 × level 3, 2 × level 4",
      "2014 rules",
      "srd-2014",
      "Goblin",
      "Adult Red Dragon",
      "18,000",
      "Total XP 18,200",
      "×2 → adjusted XP 36,400",
      "Difficulty Deadly",
    ])
      expect(text).toContain(s);
    expect(r.height).toBeGreaterThan(200);
  }, 30_000);

  test("proposed groups and compact rows: each group with its own bar; summary rows as small cards", async () => {
    const args = { party_levels: [1, 1, 1, 1], difficulty: "hard", edition: "2014", documents: ["srd-2014"] };
    const { text } = await show("encounter", await client.callTool({ name: "build_encounter", arguments: args }), null);
    expect(text).toContain("Group 1");
    expect(text).toContain("Goblin");
    expect(text).toContain("Difficulty Hard");
    const rows = (
      await show(
        "creature",
        await client.callTool({ name: "search_creature", arguments: { documents: ["srd-2014", "srd-2024"] } }),
        null,
      )
    ).text;
    for (const s of ["Goblin", "Owlbear", "Adult Red Dragon", 'detail "full"']) expect(rows).toContain(s);
  }, 30_000);

  test("a class table: levels, proficiency bonus, features, spell slots", async () => {
    const { text } = await show(
      "class",
      await client.callTool({ name: "class_progression", arguments: { class: "Wizard", level_max: 5 } }),
      "class",
    );
    for (const s of [
      "Wizard",
      "srd-2014",
      "2014 rules",
      "Level\tProf.\tFeatures\tCantrips known\t1st\t2nd\t3rd",
      "4\t+2\tAbility Score Improvement\t4\t4\t3\t—",
    ])
      expect(text).toContain(s);
  }, 30_000);

  test("hostile homebrew from a real import renders as inert text, marked homebrew", async () => {
    const result = await call("search_creature", { name: "Imp*", documents: ["orcbrew-evil-b-pack-b"] });
    const r = await renderCard(browser!, html.creature!, result);
    // textContent: the description sits in a closed <details>.
    const text = (await r.frame.locator("#root").textContent()) ?? "";
    expect(text).toContain("Homebrew");
    expect(text).toContain("<script>parent.pwned=1</script>");
    expect(text).toContain("[click me](javascript:parent.pwned=1)");
    expect(await inert(r)).toEqual({ scripts: 1, imgs: 0, links: 0, handlers: 0, pwned: false });
    await screenshot(r, "creature-homebrew-hostile");
    expect(r.consoleErrors).toEqual([]);
    expect(r.requests).toEqual([]);
    await r.page.close();
  }, 30_000);

  test("a hostile answer straight to the card (a 100 KB name, markup everywhere) stays text", async () => {
    const big = `${"<b>x</b>".repeat(12_800)}`;
    const row = {
      name: big,
      kind: "creature",
      document_key: "<script>parent.pwned=1</script>",
      document_source: "orcbrew",
      uri: "javascript:parent.pwned=1",
      size: HOSTILE,
      ability_scores: { strength: "<img src=x onerror=parent.pwned=1>" },
      speed: { walk: HOSTILE },
      actions: [{ name: HOSTILE, desc: `| a | b |\n|---|---|\n| ${HOSTILE} | x |\n\n- ${HOSTILE}` }],
      traits: "not a list",
      senses: { nested: [HOSTILE] },
    };
    for (const card of ["creature", "spell", "item"]) {
      const r = await renderCard(browser!, html[card]!, {
        content: [{ type: "text", text: "{}" }],
        structuredContent: { results: [row], count: 1, total: 1, offset: 0, has_more: false, detail: "full" },
      });
      expect(await inert(r)).toEqual({ scripts: 1, imgs: 0, links: 0, handlers: 0, pwned: false });
      expect(await r.frame.locator("h2").innerText()).toEndWith("…");
      expect(r.consoleErrors).toEqual([]);
      expect(r.requests).toEqual([]);
      await r.page.close();
    }
  }, 30_000);

  test("a tool error is shown as its text", async () => {
    const { text } = await show(
      "spell",
      await client.callTool({ name: "search_spell", arguments: { level: 12 } }),
      null,
    );
    expect(text).toContain("level");
  }, 30_000);
});

/** A PNG's width and height (IHDR). */
function pngSize(png: Uint8Array): { width: number; height: number } {
  const v = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: v.getUint32(16), height: v.getUint32(20) };
}

/** Writes the screenshot (LK_CARD_SCREENSHOTS=1) or checks it against the committed one. */
async function screenshot(r: Rendered, name: string): Promise<void> {
  const path = join(REPO_ROOT, "docs", "cards", `${name}.png`);
  const png = await r.page.screenshot({ fullPage: true });
  if (SHOTS || !existsSync(path)) {
    writeFileSync(path, png);
    return;
  }
  const now = pngSize(png);
  const committed = pngSize(readFileSync(path));
  expect(now.width).toBe(committed.width);
  expect(Math.abs(now.height - committed.height) / committed.height).toBeLessThanOrEqual(0.15);
}

/** What a hostile payload could have left in the card's DOM. */
async function inert(
  r: Rendered,
): Promise<{ scripts: number; imgs: number; links: number; handlers: number; pwned: boolean }> {
  // Strings: the browser's DOM types are not in this project's lib.
  const dom = (await r.frame.evaluate(
    `(() => ({
    scripts: document.querySelectorAll("script").length,
    imgs: ` +
      `document.querySelectorAll("img,iframe,object,embed").length,
    links: ` +
      `document.querySelectorAll("a,[href],[src]").length,
    handlers: Array.from(document.querySelectorAll("*")).filter((e) ` +
      `=> Array.from(e.attributes).some((a) => a.name.startsWith("on"))).length,
  }))()`,
  )) as { scripts: number; imgs: number; links: number; handlers: number };
  const pwned = (await r.page.evaluate(`"pwned" in window`)) as boolean;
  return { ...dom, pwned };
}
