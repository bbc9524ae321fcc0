/**
 * The document preference inside rule ranking: when the other edition's rule ranks above its
 * preferred-edition counterpart, the counterpart moves up to just above it (with its score). Two
 * core rules are counterparts when their profiles name the same topics (SRD 5.1's "Combat Sequence"
 * and SRD 5.2's "The Order of Combat"); a rule only one edition has keeps its place.
 */
import type { Database } from "bun:sqlite";
import { ID_IN, idList } from "../../store/id-list.ts";

/** How deep the fused ranking is read for counterparts: the first page and a little more. */
const DEPTH = 40;

/** A fused hit's topics: its profile's lower-case names, sorted, joined (null without a profile). */
export interface Topical {
  id: number;
  score: number;
  document_key: string;
  topics: string | null;
}

/** The reordering itself (pure): `hits` best first, `edition` the preferred SRD's document key. */
export function counterpartsFirst<T extends Topical>(
  hits: readonly T[],
  edition: string,
  otherSrds: readonly string[],
): T[] {
  const out = [...hits];
  for (let j = 1; j < out.length; j++) {
    const y = out[j]!;
    if (y.document_key !== edition || y.topics === null) continue;
    const i = out.findIndex((x, n) => n < j && x.topics === y.topics && otherSrds.includes(x.document_key));
    if (i < 0) continue;
    out.splice(j, 1);
    out.splice(i, 0, { ...y, score: out[i]!.score });
  }
  return out;
}

/** The fused ranking with counterparts reordered (counterpartsFirst), read from the store. */
export function preferCounterparts(
  db: Database,
  fused: ReadonlyArray<{ id: number; score: number }>,
  edition: string,
  srds: readonly string[],
): Array<{ id: number; score: number }> {
  const head = fused.slice(0, DEPTH);
  const rows = db
    .query<{ id: number; doc: string; names: string | null }, [string]>(
      `SELECT id, lower(document_key) AS doc, json_extract(data, '$.common_names') AS names FROM entities ` +
        `WHERE id ${ID_IN}`,
    )
    .all(idList(head.map((f) => f.id)));
  const info = new Map(rows.map((r) => [r.id, { document_key: r.doc, topics: topicsOf(r.names) }]));
  const topical = head.map((f) => ({ ...f, ...(info.get(f.id) ?? { document_key: "", topics: null }) }));
  const others = srds.filter((d) => d !== edition);
  const reordered = counterpartsFirst(topical, edition, others).map((t) => ({ id: t.id, score: t.score }));
  return [...reordered, ...fused.slice(DEPTH)];
}

function topicsOf(json: string | null): string | null {
  if (!json) return null;
  try {
    const names = JSON.parse(json) as unknown;
    if (!Array.isArray(names) || names.length === 0) return null;
    const topics = names.map((n) => String(n).toLowerCase());
    return topics.sort().join("\u0000");
  } catch {
    return null;
  }
}
