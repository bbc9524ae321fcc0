/** class_progression: a class's (and subclass's) level table — proficiency bonus, features, spell slots. */
import * as z from "zod";
import { log } from "../log.ts";
import type { ToolDef } from "./define.ts";
import { defineTool } from "./define.ts";
import { documents, int, text } from "./params.ts";
import { classLevels } from "./progression/lookup.ts";
import { toolAnswer, toolError } from "./response.ts";
import { upstreamFailure } from "./run-search.ts";

const input = z
  .object({
    class: text('Class name or key (e.g. "Wizard")', 200).pipe(z.string().min(1, "must not be empty")),
    subclass: text('Subclass name or key; adds its features (e.g. "School of Evocation")', 200).optional(),
    documents: documents().optional(),
    level_min: int(1, 20, "First level to show (default 1)").optional(),
    level_max: int(1, 20, "Last level to show (default 20)").optional(),
  })
  .strict();

const row = z.looseObject({
  level: z.number().int(),
  proficiency_bonus: z.string().nullable(),
  features: z.array(z.string()),
  spell_slots: z.array(z.number()).optional().describe("Slots per spell level; [0] = 1st"),
});
const ident = z.object({ key: z.string(), name: z.string(), document_key: z.string(), uri: z.string() });
const output = z.object({
  class: ident,
  subclass: ident.optional(),
  columns: z.array(z.string()).describe("The class's own columns, found in each row's `other`"),
  levels: z.array(row),
  other_documents: z.array(z.string()),
  message: z.string().optional(),
});

export const classProgression: ToolDef = defineTool({
  name: "class_progression",
  title: "Class level table",
  description: [
    "A class's level-by-level table from its source document: proficiency bonus, features gained, cantrips / spells known or prepared, spell slots per spell level, and the class's own columns (rages, sneak attack...). Add `subclass` for its features; `documents` picks the book (other_documents lists the rest). Also readable as resource lorekeeper://class/{key}/levels.",
    'Example: {"class": "Wizard", "level_min": 1, "level_max": 5}.',
  ].join("\n"),
  input,
  output,
  openWorld: true,
  async run(a, ctx) {
    try {
      await ctx.gate.ensure(["class", "subclass"], ctx.progress);
    } catch (err) {
      log.warn("class_progression: first-use data load failed", err);
      if (ctx.gate.emptyKinds(["class"]).length > 0) return toolError(upstreamFailure(["class", "subclass"], err));
    }
    const lo = a.level_min ?? 1;
    const hi = a.level_max ?? 20;
    if (lo > hi) return toolError(`level_min (${lo}) is above level_max (${hi}).`);
    const r = classLevels(ctx.deps.db, { class: a.class, subclass: a.subclass || undefined, documents: a.documents });
    if (typeof r === "string") return toolError(r);
    return toolAnswer({ ...r, levels: r.levels.filter((l) => l.level >= lo && l.level <= hi) });
  },
});
