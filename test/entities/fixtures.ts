/** Loads the hand-trimmed upstream fixtures and runs content types over them. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  dnd5eApiDocuments,
  documentMap,
  normalizeOpen5eDocuments,
  normalizeOpen5eV1Documents,
} from "../../src/entities/normalize/documents.ts";
import type { ContentType, NormalizeResult } from "../../src/entities/normalize/types.ts";
import type { DocumentInfo, DocumentSource, Entity, EntityKind } from "../../src/entities/types.ts";
import { SOURCES } from "../../src/sources/index.ts";

export const UPSTREAM = join(import.meta.dir, "..", "fixtures", "upstream");
export const OPEN5E_BASE = "http://127.0.0.1:9/open5e";
export const DND_BASE = "http://127.0.0.1:9/dnd";

export type Raw = { [k: string]: any };

export function fixture(path: string): Raw[] {
  return JSON.parse(readFileSync(join(UPSTREAM, path), "utf8")) as Raw[];
}

export function fixturePath(t: ContentType, endpoint = t.endpoint): string {
  return `${fixturesOf(t).dir(t)}/${endpoint}.json`;
}

export function hasFixture(t: ContentType, endpoint = t.endpoint): boolean {
  return existsSync(join(UPSTREAM, fixturePath(t, endpoint)));
}

export const v2Docs: DocumentInfo[] = normalizeOpen5eDocuments(
  fixture("open5e/v2/documents.json"),
  fixture("open5e/v2/licenses.json"),
  fixture("open5e/v2/publishers.json"),
);
export const v1Docs: DocumentInfo[] = normalizeOpen5eV1Documents(fixture("open5e/v1/documents.json"), v2Docs);
export const dndDocs: DocumentInfo[] = dnd5eApiDocuments(DND_BASE);

/** Every content type of every source (derived from the registry, so a new source is covered). */
export const ALL_TYPES: ContentType[] = SOURCES.flatMap((s) => [...s.contentTypes]);

export function contentType(source: ContentType["source"], id: string): ContentType {
  const t = ALL_TYPES.find((x) => x.source === source && x.id === id);
  if (!t) throw new Error(`no content type ${source}:${id}`);
  return t;
}

/**
 * Where each synced source's fixtures live, the documents they name and the base URL their entities
 * cite. Keyed by every source id, so a new source does not compile here until it has its line
 * (null for a source read from files: it has no content types).
 */
interface SourceFixtures {
  dir(t: ContentType): string;
  docs(): DocumentInfo[];
  base: string;
}

const BY_SOURCE: Record<DocumentSource, SourceFixtures | null> = {
  open5e_v2: { dir: () => "open5e/v2", docs: () => v2Docs, base: OPEN5E_BASE },
  dnd5e_api: { dir: (t) => `dnd5eapi/${t.year}`, docs: () => dndDocs, base: DND_BASE },
  open5e_v1: { dir: () => "open5e/v1", docs: () => v1Docs, base: OPEN5E_BASE },
  orcbrew: null,
  "5etools": null,
};

function fixturesOf(t: ContentType) {
  const f = BY_SOURCE[t.source];
  if (!f) throw new Error(`${t.source} has content types but no fixtures line in test/entities/fixtures.ts`);
  return f;
}

export function docsFor(t: ContentType): DocumentInfo[] {
  return fixturesOf(t).docs();
}

/** The base URL a content type's fixtures are normalized with. */
export function baseFor(t: ContentType): string {
  return fixturesOf(t).base;
}

/** Normalize a content type's fixture (with its related fixtures), or the given records. */
export function run(t: ContentType, records?: unknown[]): NormalizeResult {
  const related: Record<string, unknown[]> = {};
  for (const ep of t.related ?? []) if (hasFixture(t, ep)) related[ep] = fixture(fixturePath(t, ep));
  return t.normalize(records ?? fixture(fixturePath(t)), {
    baseUrl: baseFor(t),
    documents: documentMap(docsFor(t)),
    related,
  });
}

export function one(r: NormalizeResult, key: string, kind?: EntityKind): Entity {
  const e = r.entities.find((x) => x.key === key && (!kind || x.kind === kind));
  if (!e) throw new Error(`entity ${kind ?? ""}:${key} not produced (have ${r.entities.map((x) => x.key).join(", ")})`);
  return e;
}

export function raw(path: string, key: string, field = "key"): Raw {
  const r = fixture(path).find((x) => x[field] === key);
  if (!r) throw new Error(`fixture ${path} has no ${key}`);
  return r;
}

/** Typed access to entity data in tests. */
export function data(e: Entity): Raw {
  return e.data as Raw;
}
