/**
 * compare_editions: one thing as SRD 5.1 (srd-2014, the 2014 rules) and SRD 5.2 (srd-2024, the
 * 2024 rules) have it, side by side, with the differences named field by field (level, casting
 * time, range, damage, CR, AC, HP, …) and whether the text changed. Either edition's name works
 * ("Thug" finds the SRD 5.2 Tough, entities/renames.ts).
 */
import * as z from "zod";
import { compareMembers, textSimilarity } from "../entities/agreement.ts";
import { KINDS } from "../entities/catalog.ts";
import { counterpart } from "../entities/renames.ts";
import type { Entity, EntityKind, JsonObject } from "../entities/types.ts";
import type { SearchHit } from "../search/types.ts";
import type { ToolDef } from "./define.ts";
import { defineTool } from "./define.ts";
import { text, vocab } from "./params.ts";
import { entityUri, toolAnswer, toolError } from "./response.ts";

const COMPARED = ["spell", "creature", "weapon", "armor", "magic_item", "item", "condition", "rule", "feat", "background", "species", "class"] as const satisfies readonly EntityKind[];
export const KIND_WORDS = ["spell", "creature", "weapon", "armor", "magic-item", "item", "condition", "rule", "feat", "background", "species", "class"] as const;

const input = z
  .object({
    name: text('Either edition\'s name, e.g. "Fireball", "Thug"', 200).pipe(z.string().min(1, "must not be empty")),
    kind: vocab(KIND_WORDS, "When the name is ambiguous").optional(),
  })
  .strict();

const output = z.looseObject({
  name: z.string(),
  kind: z.string(),
  srd_2014: z.looseObject({}).nullable(),
  srd_2024: z.looseObject({}).nullable(),
  differences: z.array(z.looseObject({ field: z.string() })),
});

/** Damage as the text states it ("8d6 fire"), in order of appearance. */
function damage(e: Entity): string | undefined {
  const d = e.data as JsonObject;
  const body = [d.desc, d.higher_level].filter((x) => typeof x === "string").join(" ");
  const found = [...body.matchAll(/\b(\d+d\d+(?:\s*[+-]\s*\d+)?)\)?\s+(\w+)\s+damage\b/gi)].map((m) => `${m[1]!.replace(/\s+/g, "")} ${m[2]!.toLowerCase()}`);
  return found.length ? [...new Set(found)].join(", ") : undefined;
}

function side(h: SearchHit | undefined): JsonObject | null {
  if (!h) return null;
  const e = h.entity;
  return { name: e.name, document_key: e.document_key, document_name: e.document_name, uri: entityUri(e.kind, e.key, e.document_source) };
}

async function find(run: (q: { kinds: EntityKind[]; name: string; documents: string[] }) => Promise<SearchHit[]>, kinds: EntityKind[], name: string, doc: "srd-2014" | "srd-2024"): Promise<SearchHit | undefined> {
  const direct = (await run({ kinds, name, documents: [doc] }))[0];
  if (direct) return direct;
  const c = counterpart(kinds, name);
  return c && c.otherDocument === doc ? (await run({ kinds, name: c.other, documents: [doc] }))[0] : undefined;
}

export const compareEditions: ToolDef = defineTool({
  name: "compare_editions",
  title: "Compare 2014 and 2024",
  description: "One entry as SRD 5.1 (2014) and SRD 5.2 (2024) have it, with the differences field by field. E.g. {\"name\":\"Fireball\"}",
  input,
  output,
  openWorld: true,
  async run(a, ctx) {
    const kinds: EntityKind[] = a.kind ? [a.kind === "magic-item" ? "magic_item" : (a.kind as EntityKind)] : [...COMPARED];
    const run = async (q: { kinds: EntityKind[]; name: string; documents: string[] }) => (await ctx.deps.search({ ...q, limit: 5, collapse: false })).hits;
    await ctx.gate.ensure(kinds, ctx.progress).catch(() => undefined);
    let old = await find(run, kinds, a.name, "srd-2014");
    let neu = await find(run, kinds, a.name, "srd-2024");
    // Same kind on both sides: the kind of whichever was found first.
    const kind = (old ?? neu)?.entity.kind;
    if (kind && old && old.entity.kind !== kind) old = undefined;
    if (kind && neu && neu.entity.kind !== kind) neu = (await find(run, [kind], a.name, "srd-2024")) ?? undefined;
    if (!old && !neu) {
      return toolError(`Neither SRD 5.1 (srd-2014) nor SRD 5.2 (srd-2024) has "${a.name}"${a.kind ? ` as a ${a.kind}` : ""}. Use search_all {"query": "${a.name.replaceAll('"', "")}"} to find its exact name, then ask again.`);
    }
    const differences: JsonObject[] = [];
    const same: string[] = [];
    const notes: string[] = [];
    if (old && neu) {
      if (old.entity.name !== neu.entity.name) notes.push(`SRD 5.2 calls it "${neu.entity.name}" (SRD 5.1: "${old.entity.name}").`);
      const auditKind = (["spell", "creature", "weapon", "armor", "magic_item"] as const).find((k) => k === kind);
      if (auditKind) {
        for (const v of compareMembers(auditKind, [
          { source: "srd_2014", key: old.entity.key, data: old.entity.data },
          { source: "srd_2024", key: neu.entity.key, data: neu.entity.data },
        ])) {
          if (v.similarity !== undefined) continue;
          // A 2024 stat block lists every save; 2014 lists only proficient ones: "none" there is not a change.
          if (v.field.startsWith("saving_throws.") && (v.values.srd_2014 === "none" || v.values.srd_2014 === undefined)) continue;
          if (v.verdict === "agree") same.push(v.field);
          else differences.push({ field: v.field, srd_2014: v.values.srd_2014 ?? null, srd_2024: v.values.srd_2024 ?? null });
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
      else differences.push({ field: "text", change: `rewritten: ${overlap}% of the words shared`, srd_2014_chars: t14.length, srd_2024_chars: t24.length });
    } else {
      notes.push(old ? `SRD 5.2 (srd-2024) has no "${old.entity.name}".` : `SRD 5.1 (srd-2014) has no "${neu!.entity.name}".`);
    }
    const answer = {
      name: (neu ?? old)!.entity.name,
      kind: KINDS[kind!].label,
      srd_2014: side(old),
      srd_2024: side(neu),
      differences,
      ...(same.length ? { same } : {}),
      ...(notes.length ? { message: `${notes.join(" ")} Read either side in full from its uri.` } : {}),
    };
    return toolAnswer(answer);
  },
});
