import { traitsOnlyWhenNamed } from "../../store/entities.ts";
import { vocab } from "../kit/params.ts";
import { searchTool } from "../kit/search-tool.ts";
import { RULE_TYPES } from "../kit/vocab.ts";

export const searchRule = searchTool({
  group: "rule",
  name: "search_rule",
  title: "Search rules",
  description: [
    "Rules and references (conditions, skills, monster traits, languages...): by `name` or `search`.",
    'E.g. {"name": "Grappled"}, {"search": "what happens when I fall"}.',
  ].join("\n"),
  selector: {
    param: "rule_type",
    schema: vocab(RULE_TYPES.values, "", {
      conditions: "condition",
      ability: "ability-score",
      "spell-school": "magic-school",
      school: "magic-school",
      property: "weapon-property",
    }).optional(),
    kinds: (a, db) => {
      if (a.rule_type) return RULE_TYPES.select(a.rule_type);
      // Monster traits answer a name, or a `search` that names one ("what does pack tactics do");
      // other rule questions rank the rules without the ~600 traits of a full store.
      return typeof a.search === "string" && a.search && !(typeof a.name === "string" && a.name)
        ? traitsOnlyWhenNamed(db, RULE_TYPES.all, a.search)
        : RULE_TYPES.all;
    },
  },
});
