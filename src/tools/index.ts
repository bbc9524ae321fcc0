/** Every tool, in the order tools/list shows them. */
import { buildEncounter } from "./build-encounter.ts";
import { classProgression } from "./class-progression.ts";
import { compareEditions } from "./compare-editions.ts";
import type { ToolDef } from "./kit/define.ts";
import { listDocumentsTool } from "./list-documents.ts";
import { rollOdds } from "./roll-odds.ts";
import { searchAll } from "./search-tools/search-all.ts";
import { searchCharacterOption } from "./search-tools/search-character-option.ts";
import { searchCreature } from "./search-tools/search-creature.ts";
import { searchEquipment } from "./search-tools/search-equipment.ts";
import { searchRule } from "./search-tools/search-rule.ts";
import { searchSpell } from "./search-tools/search-spell.ts";

export const TOOLS: readonly ToolDef[] = [
  searchSpell,
  searchCreature,
  searchCharacterOption,
  searchEquipment,
  searchRule,
  searchAll,
  listDocumentsTool,
  buildEncounter,
  classProgression,
  compareEditions,
  rollOdds,
];

/** The tools by name. */
export const TOOL_BY_NAME: ReadonlyMap<string, ToolDef> = new Map(TOOLS.map((t) => [t.name, t]));
