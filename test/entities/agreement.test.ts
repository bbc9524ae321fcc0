/**
 * Upstream errors caught by agreement: trimmed real records of SRD 5.1 creatures and weapons from
 * Open5e v2, Open5e v1 and the D&D 5e API, synced through the fake upstream into a real store.
 * Where two sources agree against the third, the third answers the majority and says so; where
 * they agree, nothing changes; a majority verdict a review found wrong is not applied. Plus the
 * corrections file itself: every entry is a real two-against-one with its evidence.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { compareMembers, normalizeValue } from "../../src/entities/agreement.ts";
import { applyCorrections, type Correction, KEPT } from "../../src/entities/corrections/apply.ts";
import table from "../../src/entities/corrections/srd-2014.json" with { type: "json" };
import type { Entity, JsonObject } from "../../src/entities/types.ts";
import { runSync } from "../../src/ingest/sync.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { auditStore } from "../../scripts/eval-agreement.ts";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { makeTempDir } from "../support/tmp.ts";
import { upstreamsAt } from "../../src/sources/index.ts";

const CORRECTIONS = (table as { corrections: Correction[] }).corrections;
let fake: FakeUpstream;
let tmp: ReturnType<typeof makeTempDir>;
let store: Store;

beforeAll(async () => {
  fake = await startFakeUpstream({ dataDir: join(import.meta.dir, "..", "fixtures", "agreement") });
  tmp = makeTempDir("lk-agree-");
  store = openStore({ path: join(tmp.dir, "lk.db") });
  const config = { ...loadConfig(), ...upstreamsAt(fake.url), httpRetries: 0 };
  const r = await runSync(store, {
    config,
    sources: ["open5e_v2", "open5e_v1", "dnd5e_api"],
    types: ["creature", "weapon"],
    force: true,
  });
  expect(r.results.filter((x) => x.status === "failed").map((x) => `${x.source} ${x.contentType}: ${x.error}`)).toEqual(
    [],
  );
}, 60_000);
afterAll(async () => {
  store.close();
  await fake.stop();
  tmp.cleanup();
});

function stored(source: string, kind: string, name: string): JsonObject {
  const row = store.db
    .query<{ data: string }, [string, string, string]>(
      "SELECT data FROM entities WHERE document_source = ? AND kind = ? AND name = ? AND document_key = 'srd-2014'",
    )
    .get(source, kind, name);
  if (!row) throw new Error(`no ${source} ${kind} ${name}`);
  return JSON.parse(row.data) as JsonObject;
}
const notes = (d: JsonObject) => (Array.isArray(d.upstream_notes) ? d.upstream_notes.map(String) : []);

describe("corrections by agreement, through a real sync", () => {
  test("two against one: the third source answers the majority and says so", () => {
    const chain = stored("dnd5e_api", "creature", "Chain Devil");
    expect(chain.cr).toBe(11);
    expect(notes(chain).join(" ")).toContain(
      "the D&D 5e API gives cr 8; Open5e v2 and Open5e v1 give 11. Corrected to the majority.",
    );
    const lich = stored("open5e_v1", "creature", "Lich");
    expect((lich.skills as JsonObject).arcana).toBe(18);
    expect(notes(lich).join(" ")).toContain("Open5e v1 gives skills.arcana 19");
    expect(stored("dnd5e_api", "creature", "Azer").armor_class).toBe(17);
    const short = stored("open5e_v2", "weapon", "Shortsword");
    expect(short.damage_type).toBe("piercing");
    expect(notes(short).join(" ")).toContain('Open5e v2 gives damage_type "slashing"');
    expect(stored("open5e_v2", "weapon", "Greatsword").weight_lb).toBe(6);
    // The filter column follows the corrected field.
    const cr = store.db
      .query<{ cr: number }, []>("SELECT cr FROM entities WHERE document_source = 'dnd5e_api' AND name = 'Chain Devil'")
      .get();
    expect(cr?.cr).toBe(11);
  });

  test("where the sources agree nothing changes, and a kept verdict is not applied", () => {
    for (const s of ["open5e_v2", "open5e_v1", "dnd5e_api"])
      expect(notes(stored(s, "weapon", "Longsword"))).toEqual([]);
    expect(notes(stored("open5e_v2", "creature", "Chain Devil"))).toEqual([]);
    expect(stored("open5e_v2", "creature", "Doppelganger").alignment).toBe("neutral");
    expect(String(stored("open5e_v1", "creature", "Doppelganger").alignment)).toBe("unaligned");
  });

  test("the audit over the corrected store sees what each source wrote (corrections and kept verdict counted)", () => {
    const r = auditStore(store.db);
    const creature = r.kinds.find((k) => k.kind === "creature")!;
    expect(creature.things).toBe(4);
    expect(creature.kept).toBe(1);
    const found = new Set(r.corrections.map((c) => `${c.source} ${c.name} ${c.field}`));
    for (const want of [
      "dnd5e_api Chain Devil cr",
      "open5e_v1 Lich skills.arcana",
      "dnd5e_api Azer armor_class",
      "open5e_v2 Shortsword damage_type",
      "open5e_v2 Greatsword weight_lb",
    ])
      expect(found).toContain(want);
    // Every correction the audit finds here is in the committed file (the file is up to date).
    for (const c of r.corrections)
      expect(CORRECTIONS.some((x) => x.source === c.source && x.key === c.key && x.field === c.field)).toBe(true);
  });
});

describe("the corrections file", () => {
  test("every entry is a two-against-one among the three sources, with the majority's value, once", () => {
    expect(CORRECTIONS.length).toBeGreaterThan(0);
    const seen = new Set<string>();
    for (const c of CORRECTIONS) {
      const id = `${c.source}:${c.kind}:${c.key}:${c.field}`;
      expect(seen.has(id)).toBe(false);
      seen.add(id);
      expect(Object.keys(c.evidence).sort()).toEqual(["dnd5e_api", "open5e_v1", "open5e_v2"]);
      const others = Object.entries(c.evidence)
        .filter(([s]) => s !== c.source)
        .map(([, v]) => JSON.stringify(v));
      expect(new Set(others).size).toBe(1);
      expect(JSON.stringify(c.evidence[c.source])).not.toBe(others[0]);
      expect(JSON.stringify(normalizeValue(c.field, c.value) ?? "none")).toBe(others[0]!);
      expect(KEPT.some((k) => k.source === c.source && k.name === c.name && k.field === c.field)).toBe(false);
    }
  });

  test(
    "applying an entry to a record with the minority's value gives the " +
      "majority's, with a note; the majority's own record is untouched",
    () => {
      const c = CORRECTIONS.find((x) => x.field === "cr") ?? CORRECTIONS[0]!;
      const base: Entity = {
        kind: c.kind as Entity["kind"],
        key: c.key,
        name: c.name,
        document_key: "srd-2014",
        document_name: "SRD 5.1",
        document_source: c.source as Entity["document_source"],
        source_url: "http://127.0.0.1/",
        text: "",
        filters: {},
        data: {},
      };
      const wrongValue = c.evidence[c.source] === "none" ? null : c.evidence[c.source]!;
      const fixed = applyCorrections({
        ...base,
        data: {
          [c.field.split(".")[0]!]: c.field.includes(".") ? { [c.field.split(".")[1]!]: wrongValue } : wrongValue,
        },
      });
      expect(
        notes(fixed.data).some((n) => n.includes(` gives ${c.field} `) && n.endsWith("Corrected to the majority.")),
      ).toBe(true);
      expect(
        JSON.stringify(
          normalizeValue(
            c.field,
            c.field.includes(".")
              ? (fixed.data[c.field.split(".")[0]!] as JsonObject)[c.field.split(".")[1]!]
              : fixed.data[c.field],
          ),
        ),
      ).toBe(JSON.stringify(normalizeValue(c.field, c.value)));
      const other = applyCorrections({
        ...base,
        document_source: "open5e_v2" === c.source ? "open5e_v1" : "open5e_v2",
      });
      expect(other.data.upstream_notes).toBeUndefined();
    },
  );

  test("compareMembers: duration wording, zero saves and family rarities are not disagreements", () => {
    const v = compareMembers("spell", [
      { source: "open5e_v2", key: "a", data: { duration: "1 hour", casting_time: "1 reaction" } },
      {
        source: "open5e_v1",
        key: "b",
        data: {
          duration: "Concentration, up to 1 hour",
          casting_time: "1 reaction, which you take when you see a creature casting a spell",
        },
      },
      { source: "dnd5e_api", key: "c", data: { duration: "Up to 1 hour", casting_time: "1 reaction" } },
    ]);
    expect(v.filter((x) => x.verdict !== "agree")).toEqual([]);
    const items = compareMembers("magic_item", [
      { source: "open5e_v2", key: "a", data: { rarity: "common" } },
      { source: "open5e_v1", key: "b", data: { rarity: "varies" } },
      { source: "dnd5e_api", key: "c", data: { rarity: "varies" } },
    ]);
    expect(items.find((x) => x.field === "rarity")).toBeUndefined();
    const split = compareMembers("creature", [
      { source: "open5e_v2", key: "a", data: { cr: 1 } },
      { source: "open5e_v1", key: "b", data: { cr: 2 } },
      { source: "dnd5e_api", key: "c", data: { cr: 3 } },
    ]);
    expect(split.find((x) => x.field === "cr")?.verdict).toBe("split");
  });
});
