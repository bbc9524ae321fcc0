/**
 * compare_editions: one thing as SRD 5.1 (srd-2014, the 2014 rules) and SRD 5.2 (srd-2024, the
 * 2024 rules) have it, side by side, with the differences named field by field (level, casting
 * time, range, damage, CR, AC, HP, …) and whether the text changed. Either edition's name works
 * ("Thug" finds the SRD 5.2 Tough, entities/renames.ts).
 */
import * as z from "zod";
import { compareMembers, textSimilarity } from "../entities/agreement.ts";
import { KINDS } from "../entities/catalog.ts";
import { nameForm } from "../entities/name-form.ts";
import { counterpart } from "../entities/renames.ts";
import { slugify, type Entity, type EntityKind, type JsonObject } from "../entities/types.ts";
import { hasWildcard } from "../search/filter/names.ts";
import type { SearchHit } from "../search/types.ts";
import type { ToolDef } from "./kit/define.ts";
import { defineTool } from "./kit/define.ts";
import { text, vocab } from "./kit/params.ts";
import { entityUri } from "../entities/uri.ts";
import { toolAnswer, toolError } from "./answer/response.ts";

export const KIND_WORDS = [
  "spell",
  "creature",
  "weapon",
  "armor",
  "magic-item",
  "item",
  "condition",
  "rule",
  "feat",
  "background",
  "species",
  "class",
] as const;

/** A `kind` word as an entity kind (the word list spells magic_item as magic-item). */
const kindOf = (w: (typeof KIND_WORDS)[number]): EntityKind => (w === "magic-item" ? "magic_item" : w);

/** The entity kinds compare_editions compares (no subclasses: they have no edition pairs). */
export const COMPARED_KINDS: readonly EntityKind[] = KIND_WORDS.map(kindOf);

const input = z
  .object({
    name: text('Either edition\'s name, e.g. "Fireball", "Thug"', 200).pipe(z.string().min(1, "must not be empty")),
    kind: vocab(KIND_WORDS, "When the name is ambiguous").optional(),
  })
  .strict();

const output = z.looseObject({
  name: z.string(),
  kind: z.string().optional(),
  srd_2014: z.looseObject({}).nullable().optional(),
  srd_2024: z.looseObject({}).nullable().optional(),
  differences: z.array(z.looseObject({ field: z.string() })).optional(),
  /** a wildcard or a name matching several entries: the entries to choose from (nothing compared) */
  candidates: z.array(z.looseObject({ name: z.string(), kind: z.string() })).optional(),
});

/** Damage as the text states it ("8d6 fire"), in order of appearance. */
function damage(e: Entity): string | undefined {
  const d = e.data as JsonObject;
  const body = [d.desc, d.higher_level].filter((x) => typeof x === "string").join(" ");
  const found = [...body.matchAll(/\b(\d+d\d+(?:\s*[+-]\s*\d+)?)\)?\s+(\w+)\s+damage\b/gi)].map(
    (m) => `${m[1]!.replace(/\s+/g, "")} ${m[2]!.toLowerCase()}`,
  );
  return found.length ? [...new Set(found)].join(", ") : undefined;
}

function side(h: SearchHit | undefined): JsonObject | null {
  if (!h) return null;
  const { name, document_key, document_name, kind, key, document_source } = h.entity;
  return { name, document_key, document_name, uri: entityUri(kind, key, document_source) };
}

type Run = (q: { kinds: EntityKind[]; name: string; documents: string[]; limit?: number }) => Promise<Found>;
type Found = { hits: SearchHit[]; total: number };
type Doc = "srd-2014" | "srd-2024";
const DOCS: readonly Doc[] = ["srd-2014", "srd-2024"];

/** The entry is the one asked for by name: its name, name form ("Horse, Draft"), slug or key, whatever the case. */
function isNamed(e: Entity, asked: string): boolean {
  const a = asked.trim().toLowerCase();
  if (e.name.toLowerCase() === a || e.key.toLowerCase() === a) return true;
  return nameForm(e.name) === nameForm(asked) || slugify(e.name) === a;
}

/** The first hit per kind whose entry `name` names exactly, in `doc`. */
async function exactIn(run: Run, kinds: EntityKind[], name: string, doc: Doc): Promise<SearchHit[]> {
  const { hits } = await run({ kinds, name, documents: [doc] });
  const out = new Map<string, SearchHit>();
  for (const h of hits) if (isNamed(h.entity, name) && !out.has(h.entity.kind)) out.set(h.entity.kind, h);
  return [...out.values()];
}

/** `name`'s other-edition entry by the reviewed rename table (renames.json), if `doc` holds it. */
async function renamedIn(run: Run, kinds: EntityKind[], name: string, doc: Doc): Promise<SearchHit | undefined> {
  const c = counterpart(kinds, name);
  if (!c || c.otherDocument !== doc) return undefined;
  return (await exactIn(run, [c.rename.kind], c.other, doc))[0];
}

/** A kind's entry in each SRD that has it. */
type Pair = { kind: EntityKind } & Partial<Record<Doc, SearchHit>>;

/** One candidate an ambiguous name or pattern matched: a name of one kind, with the SRDs that have it. */
interface Candidate {
  name: string;
  kind: string;
  documents: Doc[];
  /** the other edition's name (renames.json), when the entry was renamed */
  renamed_to?: string;
}

const MAX_CANDIDATES = 20;

/**
 * What `name` asks to compare. Exact names (or keys) first, each side's missing version then by
 * the reviewed rename table ("Goblin" is SRD 5.2's "Goblin Warrior", as search_creature and
 * build_encounter map it); then, for a wildcard or a partial name, the one entry it matches. An
 * entry named in several kinds, or a pattern matching several entries, gives the candidates:
 * pairing whatever matched first would present two unrelated entries ("gob*": Goblin and Goblin
 * Boss) as one renamed thing.
 */
type Paired = { pair: Pair } | { candidates: Candidate[]; total: number; complete: boolean };

async function pairOf(run: Run, kinds: EntityKind[], name: string): Promise<Paired> {
  if (!hasWildcard(name)) {
    const exact = new Map<EntityKind, Pair>();
    for (const doc of DOCS) {
      for (const h of await exactIn(run, kinds, name, doc)) {
        const p = exact.get(h.entity.kind) ?? { kind: h.entity.kind };
        p[doc] = h;
        exact.set(h.entity.kind, p);
      }
    }
    // An exact name with no version in the other edition: its renamed entry there, if it was renamed.
    for (const p of exact.values()) for (const doc of DOCS) p[doc] ??= await renamedIn(run, [p.kind], name, doc);
    if (exact.size === 1) return { pair: [...exact.values()][0]! };
    if (exact.size > 1) {
      const all = candidatesOf([...exact.values()].flatMap((p) => DOCS.map((doc) => p[doc])));
      return { candidates: all, total: all.length, complete: true };
    }
    // A renamed entry's name in an edition that does not hold the name itself.
    for (const doc of DOCS) {
      const h = await renamedIn(run, kinds, name, doc);
      if (h) {
        const other = doc === "srd-2014" ? "srd-2024" : "srd-2014";
        return {
          pair: { kind: h.entity.kind, [doc]: h, [other]: (await exactIn(run, [h.entity.kind], name, other))[0] },
        };
      }
    }
  }
  // A pattern or a part of a name: the entries it matches in either SRD.
  const found: SearchHit[] = [];
  let complete = true;
  for (const doc of DOCS) {
    const r = await run({ kinds, name, documents: [doc], limit: MAX_CANDIDATES });
    found.push(...r.hits);
    if (r.total > r.hits.length) complete = false;
  }
  const all = candidatesOf(found);
  if (all.length === 1 && complete) {
    const c = all[0]!;
    const kind = found[0]!.entity.kind;
    const at = async (doc: Doc) =>
      found.find((h) => h.entity.document_key === doc) ?? (await renamedIn(run, [kind], c.name, doc));
    return { pair: { kind, "srd-2014": await at("srd-2014"), "srd-2024": await at("srd-2024") } };
  }
  return { candidates: all.slice(0, MAX_CANDIDATES), total: all.length, complete };
}

/** The hits as candidates: one per kind and name, with the SRDs that have it and its renamed name. */
function candidatesOf(hits: ReadonlyArray<SearchHit | undefined>): Candidate[] {
  const out = new Map<string, Candidate>();
  for (const h of hits) {
    if (!h) continue;
    const e = h.entity;
    const doc = e.document_key as Doc;
    // The kind as this tool's `kind` parameter takes it, so that the candidate can be asked for again.
    const label = e.kind === "magic_item" ? "magic-item" : e.kind;
    const k = `${label}\u0000${e.name}`;
    const c = out.get(k);
    if (c) {
      if (!c.documents.includes(doc)) c.documents.push(doc);
      continue;
    }
    const r = counterpart([e.kind], e.name);
    out.set(k, { name: e.name, kind: label, documents: [doc], ...(r ? { renamed_to: r.other } : {}) });
  }
  return [...out.values()].sort((x, y) => x.name.localeCompare(y.name) || x.kind.localeCompare(y.kind));
}

export const compareEditions: ToolDef = defineTool({
  name: "compare_editions",
  title: "Compare 2014 and 2024",
  description:
    "One entry as SRD 5.1 (2014) and SRD 5.2 (2024) have it, with the differences field by field. E.g. " +
    '{"name":"Fireball"}',
  input,
  output,
  openWorld: true,
  async run(a, ctx) {
    const kinds = a.kind ? [kindOf(a.kind)] : [...COMPARED_KINDS];
    const run: Run = (q) => ctx.deps.search({ ...q, limit: q.limit ?? 5, collapse: false });
    await ctx.gate.ensure(kinds, ctx.progress).catch(() => undefined);
    const paired = await pairOf(run, kinds, a.name);
    if ("candidates" in paired) {
      if (paired.candidates.length === 0) {
        return toolError(
          `Neither SRD 5.1 (srd-2014) nor SRD 5.2 (srd-2024) has "${a.name}"${a.kind ? ` as a ${a.kind}` : ""}. ` +
            `Use search_all ${JSON.stringify({ query: a.name })} to find its exact name, then ask again.`,
        );
      }
      const shown = paired.candidates.length;
      const count = paired.complete
        ? `${paired.total} entries`
        : `more than ${paired.total} entries (the first ${shown} by name shown; a longer name narrows it)`;
      const andKind = paired.candidates.some((c) => c.kind !== paired.candidates[0]!.kind) ? " and its kind" : "";
      return toolAnswer({
        name: a.name,
        candidates: paired.candidates,
        message:
          `"${a.name}" matches ${count}, not one: nothing is compared. Call compare_editions again with one ` +
          `candidate's name${andKind}; renamed_to is that entry's name in the other SRD.`,
      });
    }
    const { kind, "srd-2014": old, "srd-2024": neu } = paired.pair;
    const differences: JsonObject[] = [];
    const same: string[] = [];
    const notes: string[] = [];
    if (old && neu) {
      if (old.entity.name !== neu.entity.name)
        notes.push(`SRD 5.2 calls it "${neu.entity.name}" (SRD 5.1: "${old.entity.name}").`);
      const auditKind = (["spell", "creature", "weapon", "armor", "magic_item"] as const).find((k) => k === kind);
      if (auditKind) {
        for (const v of compareMembers(auditKind, [
          { source: "srd_2014", key: old.entity.key, data: old.entity.data },
          { source: "srd_2024", key: neu.entity.key, data: neu.entity.data },
        ])) {
          if (v.similarity !== undefined) continue;
          // A 2024 stat block lists every save; 2014 lists only proficient ones: "none" there is not a change.
          if (v.field.startsWith("saving_throws.") && (v.values.srd_2014 === "none" || v.values.srd_2014 === undefined))
            continue;
          if (v.verdict === "agree") same.push(v.field);
          else
            differences.push({
              field: v.field,
              srd_2014: v.values.srd_2014 ?? null,
              srd_2024: v.values.srd_2024 ?? null,
            });
        }
        const d14 = damage(old.entity);
        const d24 = damage(neu.entity);
        if (d14 !== d24) differences.push({ field: "damage", srd_2014: d14 ?? null, srd_2024: d24 ?? null });
        else if (d14) same.push("damage");
      }
      const t14 = String((old.entity.data as JsonObject).desc ?? old.entity.text ?? "");
      const t24 = String((neu.entity.data as JsonObject).desc ?? neu.entity.text ?? "");
      const overlap = Math.round(textSimilarity(t14, t24) * 100);
      if (overlap >= 98) same.push("text");
      else
        differences.push({
          field: "text",
          change: `rewritten: ${overlap}% of the words shared`,
          srd_2014_chars: t14.length,
          srd_2024_chars: t24.length,
        });
    } else {
      notes.push(
        old ? `SRD 5.2 (srd-2024) has no "${old.entity.name}".` : `SRD 5.1 (srd-2014) has no "${neu!.entity.name}".`,
      );
    }
    const answer = {
      name: (neu ?? old)!.entity.name,
      kind: KINDS[kind].label,
      srd_2014: side(old),
      srd_2024: side(neu),
      differences,
      ...(same.length ? { same } : {}),
      ...(notes.length ? { message: `${notes.join(" ")} Read either side in full from its uri.` } : {}),
    };
    return toolAnswer(answer);
  },
});
