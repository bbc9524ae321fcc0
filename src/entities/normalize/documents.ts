/**
 * Document keys and metadata. Keys follow Open5e v2 (spec decision 4): v1 slugs map to the v2 key
 * of the same book, dnd5eapi years map to the SRDs, and common aliases resolve to these keys.
 */
import * as v from "valibot";
import type { DocumentInfo } from "../types.ts";
import type { Dnd5eYear } from "./types.ts";
import { isRec, recs, refKey, str } from "./read.ts";

/** Open5e v1 document slug → Open5e v2 document key (same book). Checked against both documents lists. */
export const V1_TO_V2_DOCUMENT: Readonly<Record<string, string>> = {
  "wotc-srd": "srd-2014",
  o5e: "open5e",
  tob: "tob",
  "tob-2023": "tob-2023",
  tob2: "tob2",
  tob3: "tob3",
  cc: "ccdx",
  dmag: "deepm",
  "dmag-e": "deepmx",
  kp: "kp",
  warlock: "wz",
  vom: "vom",
  toh: "toh",
  menagerie: "a5e-mm",
  a5e: "a5e-ag",
  taldorei: "tdcs",
  blackflag: "bfrd",
};

/** Extra aliases people use for the SRDs: alias → key. */
export const DOCUMENT_ALIASES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries({
    "srd-2014": ["srd", "srd-5e", "srd5e", "srd-5.1", "srd5.1", "srd-51", "srd-2014", "5e-srd", "dnd5e-2014"],
    "srd-2024": ["srd-5.2", "srd5.2", "srd-52", "srd-2024", "dnd5e-2024"],
  }).flatMap(([key, aliases]) => aliases.map((a) => [a, key])),
);

/** Map any known alias or v1 slug to the canonical (v2-style) key; unknown keys are lower-cased as-is. */
export function resolveDocumentKey(raw: string): string {
  const k = raw.trim().toLowerCase();
  // Own keys only: "__proto__" or "constructor" (a --prefer-documents value) is an unknown key, not Object's.
  if (Object.hasOwn(DOCUMENT_ALIASES, k)) return DOCUMENT_ALIASES[k]!;
  return Object.hasOwn(V1_TO_V2_DOCUMENT, k) ? V1_TO_V2_DOCUMENT[k]! : k;
}

/** Canonical document key of a dnd5eapi year. */
export function dnd5eDocumentKey(year: Dnd5eYear): string {
  return year === "2014" ? "srd-2014" : "srd-2024";
}

const SRD_NAMES: Readonly<Record<string, string>> = {
  "srd-2014": "System Reference Document 5.1",
  "srd-2024": "System Reference Document 5.2",
};

/**
 * The name an official document key always carries, whatever a source or a content pack calls it
 * (undefined for other keys): the SRDs, which every source serves under these keys.
 */
export function officialDocumentName(key: string): string | undefined {
  return Object.hasOwn(SRD_NAMES, key) ? SRD_NAMES[key] : undefined;
}

/** Title of the SRD a dnd5eapi year serves ("System Reference Document 5.1"). */
export function srdName(year: Dnd5eYear): string {
  return SRD_NAMES[dnd5eDocumentKey(year)]!;
}

/** The two documents served by the D&D 5e API (baseUrl without trailing slash). */
export function dnd5eApiDocuments(baseUrl: string): DocumentInfo[] {
  return (["2014", "2024"] as const).map((year) => {
    const key = dnd5eDocumentKey(year);
    return {
      key,
      name: srdName(year),
      source: "dnd5e_api",
      publisher: "Wizards of the Coast",
      license: "Creative Commons Attribution 4.0",
      url: `${baseUrl}/api/${year}`,
      description: `D&D 5e API, ${year} rules (SRD ${year === "2014" ? "5.1" : "5.2"})`,
    };
  });
}

const V2Doc = v.looseObject({ key: v.pipe(v.string(), v.nonEmpty()), name: v.pipe(v.string(), v.nonEmpty()) });
const V1Doc = v.looseObject({ slug: v.pipe(v.string(), v.nonEmpty()), title: v.pipe(v.string(), v.nonEmpty()) });

function byKeyNames(list: unknown[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const r of recs(list)) {
    const k = str(r.key);
    const n = str(r.name);
    if (k && n) m.set(k, n);
  }
  return m;
}

/**
 * Open5e v2 documents with publisher and licence names resolved (`licenses`/`publishers` may be
 * empty; the document's own nested names are used then). Invalid records are dropped.
 */
export function normalizeOpen5eDocuments(
  v2docs: unknown[],
  licenses: unknown[] = [],
  publishers: unknown[] = [],
): DocumentInfo[] {
  const licenseNames = byKeyNames(licenses);
  const publisherNames = byKeyNames(publishers);
  return v2docs
    .filter((x) => v.is(V2Doc, x))
    .map((d) => {
      const pubKey = refKey(d.publisher);
      const publisher =
        (pubKey ? publisherNames.get(pubKey) : undefined) ??
        (isRec(d.publisher) ? str(d.publisher.name) : null) ??
        pubKey;
      const lic = recs(d.licenses)
        .map((l) => {
          const k = refKey(l);
          return (k ? licenseNames.get(k) : undefined) ?? str(l.name) ?? k;
        })
        .filter((s): s is string => !!s);
      const key = d.key.toLowerCase();
      return {
        key,
        name: officialDocumentName(key) ?? d.name,
        source: "open5e_v2",
        publisher: publisher ?? null,
        license: lic.length ? lic.join(", ") : null,
        url: str(d.permalink),
        description: str(d.desc),
      };
    });
}

/**
 * Open5e v1 documents under their canonical keys (`wotc-srd` → `srd-2014`). When `v2docs` is given,
 * a mapped document takes its v2 name so both sources show the same book name.
 */
export function normalizeOpen5eV1Documents(v1docs: unknown[], v2docs: DocumentInfo[] = []): DocumentInfo[] {
  const v2names = new Map(v2docs.map((d) => [d.key, d.name]));
  return v1docs
    .filter((x) => v.is(V1Doc, x))
    .map((d) => {
      const key = resolveDocumentKey(d.slug);
      return {
        key,
        name: v2names.get(key) ?? SRD_NAMES[key] ?? d.title,
        source: "open5e_v1",
        publisher: str(d.organization)?.replace(/™/g, "") ?? null,
        license: str(d.license),
        url: str(d.url),
        description: str(d.desc),
      };
    });
}

/** Index documents by key for a NormalizeContext. */
export function documentMap(docs: DocumentInfo[]): Map<string, DocumentInfo> {
  return new Map(docs.map((d) => [d.key, d]));
}
