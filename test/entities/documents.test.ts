import { describe, expect, test } from "bun:test";
import {
  DOCUMENT_ALIASES,
  V1_TO_V2_DOCUMENT,
  dnd5eApiDocuments,
  dnd5eDocumentKey,
  normalizeOpen5eDocuments,
  normalizeOpen5eV1Documents,
  officialDocumentName,
  resolveDocumentKey,
} from "../../src/entities/normalize/documents.ts";
import { DND_BASE, fixture, v1Docs, v2Docs } from "./fixtures.ts";

describe("document keys", () => {
  test("SRD aliases resolve to the v2 keys", () => {
    for (const a of ["srd-5e", "SRD-5.1", "wotc-srd", "srd", " srd-2014 "])
      expect(resolveDocumentKey(a)).toBe("srd-2014");
    for (const a of ["srd-5.2", "srd-2024"]) expect(resolveDocumentKey(a)).toBe("srd-2024");
  });
  test("v1 slugs map to the v2 key of the same book; unknown keys pass through lower-cased", () => {
    expect(resolveDocumentKey("a5e")).toBe("a5e-ag");
    expect(resolveDocumentKey("menagerie")).toBe("a5e-mm");
    expect(resolveDocumentKey("taldorei")).toBe("tdcs");
    expect(resolveDocumentKey("blackflag")).toBe("bfrd");
    expect(resolveDocumentKey("cc")).toBe("ccdx");
    expect(resolveDocumentKey("o5e")).toBe("open5e");
    expect(resolveDocumentKey("dmag")).toBe("deepm");
    expect(resolveDocumentKey("dmag-e")).toBe("deepmx");
    expect(resolveDocumentKey("warlock")).toBe("wz");
    expect(resolveDocumentKey("TOB")).toBe("tob");
    expect(resolveDocumentKey("My-Homebrew")).toBe("my-homebrew");
  });
  test("the v1 map agrees with v1 documents' own v2_related_key where that names a v2 document", () => {
    const v2keys = new Set(fixture("open5e/v2/documents.json").map((d) => d.key));
    for (const d of fixture("open5e/v1/documents.json")) {
      if (v2keys.has(d.v2_related_key)) expect(V1_TO_V2_DOCUMENT[d.slug]).toBe(d.v2_related_key);
      expect(v2keys.has(resolveDocumentKey(d.slug))).toBe(true);
    }
  });
  test("every alias target is a canonical key", () => {
    for (const target of Object.values(DOCUMENT_ALIASES)) expect(["srd-2014", "srd-2024"]).toContain(target);
    expect(dnd5eDocumentKey("2014")).toBe("srd-2014");
    expect(dnd5eDocumentKey("2024")).toBe("srd-2024");
  });
});

describe("document metadata", () => {
  test("Open5e v2 documents resolve publisher and licence names", () => {
    const raw = fixture("open5e/v2/documents.json");
    expect(v2Docs.map((d) => d.key).sort()).toEqual(raw.map((d) => d.key).sort());
    const licenseName = new Map(fixture("open5e/v2/licenses.json").map((l) => [l.key, l.name]));
    for (const r of raw) {
      const d = v2Docs.find((x) => x.key === r.key)!;
      expect(d.name).toBe(r.name);
      expect(d.source).toBe("open5e_v2");
      expect(d.publisher).toBe(r.publisher.name);
      expect(d.license).toBe(r.licenses.map((l: { key: string }) => licenseName.get(l.key)).join(", "));
      expect(d.url).toBe(r.permalink);
    }
  });
  test("licence/publisher lists are optional", () => {
    const docs = normalizeOpen5eDocuments(fixture("open5e/v2/documents.json"));
    expect(docs.find((d) => d.key === "srd-2014")!.license).toContain("Creative Commons Attribution 4.0");
  });
  test("invalid document records are dropped", () => {
    expect(normalizeOpen5eDocuments([{ name: "no key" }, 42, null, { key: "x", name: "X" }]).map((d) => d.key)).toEqual(
      ["x"],
    );
    expect(normalizeOpen5eV1Documents([{ title: "no slug" }])).toEqual([]);
  });
  test("Open5e v1 documents get canonical keys and the v2 name of the same book", () => {
    const raw = fixture("open5e/v1/documents.json");
    expect(v1Docs.length).toBe(raw.length);
    const srd = v1Docs.find((d) => d.key === "srd-2014")!;
    expect(srd.source).toBe("open5e_v1");
    expect(srd.name).toBe(v2Docs.find((d) => d.key === "srd-2014")!.name);
    const withoutV2 = normalizeOpen5eV1Documents(raw);
    expect(withoutV2.find((d) => d.key === "a5e-mm")!.name).toBe(raw.find((d) => d.slug === "menagerie")!.title);
  });
  test("the SRDs carry their official names whatever an upstream calls them", () => {
    const docs = normalizeOpen5eDocuments([
      { key: "SRD-2024", name: "Totally Official SRD" },
      { key: "tob", name: "Tome of Beasts" },
    ]);
    expect(docs.map((d) => d.name)).toEqual(["System Reference Document 5.2", "Tome of Beasts"]);
    expect(officialDocumentName("srd-2014")).toBe("System Reference Document 5.1");
    expect(officialDocumentName("tob")).toBeUndefined();
    expect(officialDocumentName("constructor")).toBeUndefined();
  });
  test("the D&D 5e API serves the two SRDs", () => {
    const docs = dnd5eApiDocuments(DND_BASE);
    expect(docs.map((d) => d.key)).toEqual(["srd-2014", "srd-2024"]);
    expect(docs.every((d) => d.source === "dnd5e_api" && d.url!.startsWith(DND_BASE))).toBe(true);
  });
});
