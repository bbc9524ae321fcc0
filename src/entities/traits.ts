/**
 * Trait reference rows: a monster trait many stat blocks share ("Pack Tactics", "Flyby", "Magic
 * Resistance") as an entry of its own (kind `trait`), so "what does Pack Tactics do" is a name
 * lookup in search_rule / search_all. Derived from the stored creatures whenever they change
 * (store/entities.ts refreshTraits): one row per trait name held by at least two creatures, with
 * the text once (the most preferred document's creature, named in `wording_from`), how many
 * creatures have it and the first of them (the preferred documents' first, then by name). Pure.
 */
import { blockName, text, withoutUsage } from "./derived.ts";
import { recs } from "./normalize/read.ts";
import { cmp, type DocumentRank } from "./preference.ts";
import { type Entity, type JsonObject, slugify } from "./types.ts";
import { entityUri } from "./uri.ts";

/** The stored creature rows a trait row is read from: the entity's identity, document and data. */
export type TraitSourceRow = Pick<
  Entity,
  "key" | "name" | "document_key" | "document_name" | "document_source" | "source_url" | "data"
>;

/** The origin the trait rows are stored under. */
export const TRAITS_ORIGIN = "derived:traits";
/** A trait is a reference entry when at least this many creatures (distinct names) have it. */
const MIN_CREATURES = 2;
/** Creature names a row lists. */
const LISTED = 10;

/** Spellcasting traits list each creature's own spells: not one rule a reference row could quote. */
const NOT_A_REFERENCE = /spellcasting/;

/** The trait rows of `creatures` (a store's answering creatures), by the document preference `rank`. */
export function traitEntities(creatures: readonly TraitSourceRow[], rank: DocumentRank): Entity[] {
  const held: { words: string; row: TraitSourceRow; display: string; desc: string }[] = [];
  for (const row of creatures) {
    const seen = new Set<string>();
    for (const t of recs(row.data.traits)) {
      const raw = text(t.name);
      const desc = text(t.desc).trim();
      const words = blockName(raw);
      if (!words || words.length > 60 || !desc || NOT_A_REFERENCE.test(words) || seen.has(words)) continue;
      seen.add(words);
      held.push({ words, row, display: withoutUsage(raw), desc });
    }
  }
  const out: Entity[] = [];
  for (const [words, holders] of Map.groupBy(held, (h) => h.words)) {
    holders.sort(
      (a, b) =>
        rank(a.row) - rank(b.row) ||
        cmp(a.row.document_key.toLowerCase(), b.row.document_key.toLowerCase()) ||
        cmp(a.row.name.toLowerCase(), b.row.name.toLowerCase()) ||
        cmp(a.row.key, b.row.key),
    );
    // Distinct names, any case, each as its first holder writes it.
    const names = [...Map.groupBy(holders, (h) => h.row.name.toLowerCase()).values()].map((g) => g[0]!.row.name);
    if (names.length < MIN_CREATURES) continue;
    const first = holders[0]!;
    const documents = [...new Set(holders.map((h) => h.row.document_key.toLowerCase()))];
    const name = /[A-Z]/.test(first.display) ? first.display : first.display.replace(/\b\w/g, (c) => c.toUpperCase());
    const data: JsonObject = {
      desc: first.desc,
      wording_from: {
        name: first.row.name,
        document_key: first.row.document_key,
        uri: entityUri("creature", first.row.key, first.row.document_source),
      },
      creature_count: names.length,
      creatures: names.slice(0, LISTED),
      documents,
      // The whole list, any book: the creature filter on the trait's words.
      all_creatures: `search_creature ${JSON.stringify({ trait: words })}`,
    };
    out.push({
      kind: "trait",
      key: slugify(words),
      name,
      document_key: first.row.document_key,
      document_name: first.row.document_name,
      document_source: first.row.document_source,
      source_url: first.row.source_url,
      text: `${name}\nMonster trait. ${first.desc}`,
      filters: { also_documents: documents.filter((d) => d !== first.row.document_key.toLowerCase()) },
      data,
    });
  }
  return out.sort((a, b) => cmp(a.key, b.key));
}
