/**
 * Store side of the encounter tool: the creatures a caller names (by key or exact name) and the
 * candidate pool of a proposal (the search layer's filters, plus environments from the data).
 */
import type { Database } from "bun:sqlite";
import type { Entity, JsonObject } from "../../entities/types.ts";
import { entityUri, parseUriKey } from "../../entities/uri.ts";
import { documentRank } from "../../entities/preference.ts";
import { type EntityRow, getEntityByKey, getEntityBySourceKey, rowToEntity } from "../../store/entities.ts";
import { closestNames } from "../../search/rank/explain.ts";
import type { SearchQuery, SearchResponse, StructuredFilters } from "../../search/types.ts";
import type { Monster } from "./math.ts";
import type { Candidate } from "./propose.ts";
import type { Edition } from "./tables.ts";
import { counterpart, renameNote } from "../../entities/renames.ts";
import { xpForCr } from "../../entities/normalize/vocab.ts";

/** The document an edition's creatures come from first when a bare name matches several. */
export const EDITION_DOC: Record<Edition, string> = { "2014": "srd-2014", "2024": "srd-2024" };

/** The creature's XP: its own stated XP, else the CR table's. */
function creatureXp(e: Pick<Entity, "filters" | "data">): number | undefined {
  const xp = (e.data as JsonObject).xp;
  if (typeof xp === "number" && Number.isFinite(xp) && xp >= 0) return xp;
  const cr = e.filters.cr;
  return typeof cr === "number" ? (xpForCr(cr) ?? undefined) : undefined;
}

export function toMonster(e: Entity, count: number): Monster | undefined {
  const xp = creatureXp(e);
  if (xp === undefined) return undefined;
  return {
    name: e.name,
    count,
    cr: e.filters.cr ?? null,
    xp,
    key: e.key,
    document_key: e.document_key,
    uri: entityUri(e.kind, e.key, e.document_source),
  };
}

/**
 * A creature by key, else by exact name (case-insensitive): the edition's SRD first, then the other
 * SRD, then other books. A name the edition's SRD changed ("Goblin" under the 2024 rules is the
 * SRD 5.2 "Goblin Warrior") finds the renamed entry, and `note` says so.
 */
export function findCreature(
  db: Database,
  ref: { key?: string; name?: string },
  edition: Edition,
): (Entity & { note?: string }) | undefined {
  if (ref.key) {
    // A key as its address writes it ("open5e_v1:ogre") or bare.
    const at = parseUriKey(ref.key);
    const e =
      at.sources.length === 1
        ? getEntityBySourceKey(db, "creature", at.sources, at.key)
        : getEntityByKey(db, "creature", ref.key);
    if (e) return e;
  }
  const name = ref.name || ref.key;
  if (!name) return undefined;
  const doc = EDITION_DOC[edition];
  const byName = (n: string, onlyDoc?: string) =>
    db
      .query<EntityRow, [string, string, string, string]>(
        "SELECT * FROM entities WHERE kind = 'creature' AND name = ? AND (? = '' OR document_key = ?) ORDER " +
          "BY (document_key = ?) DESC, (document_key LIKE 'srd-%') DESC, document_key, key LIMIT 1",
      )
      .get(n, onlyDoc ?? "", onlyDoc ?? "", doc);
  const c = counterpart(["creature"], name);
  if (c && c.otherDocument === doc) {
    const renamed = byName(c.other, doc);
    if (renamed) return { ...rowToEntity(renamed), note: renameNote(c) };
  }
  const row = byName(name);
  return row ? rowToEntity(row) : undefined;
}

/** " (did you mean "Goblin Warrior"?)" for a misspelled creature name, or "". */
export function didYouMean(db: Database, name: string): string {
  const near = closestNames(db, ["creature"], null, name);
  return near.length ? ` (did you mean ${near.map((n) => JSON.stringify(n)).join(" or ")}?)` : "";
}

export interface PoolQuery {
  /** The filter table's creature filters (CR range, type, alignment, spellcaster, casts). */
  filters: StructuredFilters;
  environment?: string;
  documents?: string[];
  theme?: string;
  /** the document preference (the edition's SRD first when the caller chose an edition, then the server's) */
  prefer?: readonly string[];
}

function inEnvironment(e: Entity, env: string): boolean {
  const envs = (e.data as JsonObject).environments;
  return Array.isArray(envs) && envs.some((x) => typeof x === "string" && x.toLowerCase().includes(env));
}

/**
 * Candidates for proposals: every creature the filters allow (by name), one per name: the most
 * preferred document's version that has a CR and an XP value. A creature is in an environment when
 * any version of it says so (SRD 5.2 stat blocks list none; the 2014 ones do), so a 2024 forest
 * encounter gets the 2024 Owlbear, not the 2014 one. A theme ranks its matches first (like
 * `search`), the others follow, so a narrow theme still leaves groups to build.
 */
export async function candidatePool(
  search: (q: SearchQuery) => Promise<SearchResponse>,
  q: PoolQuery,
): Promise<{ candidates: Candidate[]; themed: number; message?: string }> {
  const base = {
    kinds: ["creature"] as const,
    filters: q.filters,
    documents: q.documents,
    omitText: true,
    ...(q.prefer?.length ? { prefer: q.prefer } : {}),
  };
  const ranked = q.theme ? await search({ ...base, search: q.theme, limit: 100 }) : undefined;
  // Every version, by name, then in preference order.
  const all = await search({ ...base, limit: 2000 });
  const entities = all.hits.map((h) => h.entity);
  const versions = Map.groupBy(entities, (e) => e.name.toLowerCase());
  const env = q.environment?.toLowerCase();
  const docRank = documentRank(q.prefer ?? []);
  const seen = new Set<string>();
  const candidates: Candidate[] = [];
  let themed = 0;
  const add = (hit: Entity, fromTheme: boolean) => {
    const name = hit.name.toLowerCase();
    if (seen.has(name)) return;
    const vs = versions.get(name) ?? [hit];
    if (env && !vs.some((v) => inEnvironment(v, env))) return;
    const e = vs.find((v) => typeof v.filters.cr === "number" && creatureXp(v) !== undefined);
    if (!e) return;
    seen.add(name);
    // The document preference orders candidates too: the preferred SRD's creatures come first,
    // then the other SRD's, then other books (a step of 2 per tier, like two theme places).
    const rank = (fromTheme ? themed++ : ranked ? ranked.hits.length : 0) + 2 * Math.min(3, docRank(e));
    candidates.push({
      key: e.key,
      name: e.name,
      cr: e.filters.cr!,
      xp: creatureXp(e)!,
      document_key: e.document_key,
      uri: entityUri(e.kind, e.key, e.document_source),
      rank,
    });
  };
  for (const h of ranked?.hits ?? []) add(h.entity, true);
  for (const h of all.hits) add(h.entity, false);
  const message = ranked?.message ?? all.message;
  return { candidates, themed, ...(message ? { message } : {}) };
}
