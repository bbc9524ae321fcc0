/** class_progression: a class's (and subclass's) level table — proficiency bonus, features, spell slots. */
import * as z from "zod";
import type { ToolDef } from "./kit/define.ts";
import { defineTool } from "./kit/define.ts";
import { documents, int, text } from "./kit/params.ts";
import { classLevels } from "./progression/lookup.ts";
import { toolAnswer, toolError } from "./answer/response.ts";
import { loadFirst } from "./kit/run-search.ts";

const input = z
  .object({
    class: text('Name or key, e.g. "Wizard"', 200).pipe(z.string().min(1, "must not be empty")),
    subclass: text("Adds its features", 200).optional(),
    documents: documents().describe('Document keys, e.g. ["srd-2014"]').optional(),
    level_min: int(1, 20, "Default 1").optional(),
    level_max: int(1, 20, "Default 20").optional(),
  })
  .strict();

/** Loose rows (level, proficiency_bonus, features, spell_slots with [0] = 1st, …): tools/list stays small. */
const output = z.looseObject({
  class: z.looseObject({ key: z.string(), name: z.string() }),
  subclass: z.looseObject({}).optional(),
  columns: z.array(z.string()),
  levels: z.array(z.looseObject({ level: z.number() })),
  other_documents: z.array(z.string()),
  note: z.string().optional(),
});

export const classProgression: ToolDef = defineTool({
  name: "class_progression",
  title: "Class level table",
  description: [
    "A class's level table: proficiency bonus, features, spells known/prepared, spell_slots, class columns.",
    'E.g. {"class": "Wizard", "level_max": 5}',
  ].join("\n"),
  input,
  output,
  openWorld: true,
  async run(a, ctx) {
    const failed = await loadFirst(ctx, "class_progression", ["class", "subclass"], ["class"]);
    if (failed) return failed;
    const lo = a.level_min ?? 1;
    const hi = a.level_max ?? 20;
    if (lo > hi) return toolError(`level_min (${lo}) is above level_max (${hi}).`);
    const r = classLevels(ctx.deps.db, {
      class: a.class,
      subclass: a.subclass || undefined,
      documents: a.documents,
      prefer: ctx.deps.preferDocuments,
    });
    if (typeof r === "string") return toolError(r);
    return toolAnswer({ ...r, levels: r.levels.filter((l) => l.level >= lo && l.level <= hi) });
  },
});
