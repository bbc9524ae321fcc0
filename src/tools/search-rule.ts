/** search_rule: rules, rule sections, conditions and reference lists (damage types, skills...). */
import { vocab } from "./params.ts";
import { searchTool } from "./search-tool.ts";
import { ALL_RULE_KINDS, RULE_TYPE_KINDS, RULE_TYPES, type RuleType } from "./vocab.ts";

export const searchRule = searchTool({
  group: "rule",
  name: "search_rule",
  title: "Search rules",
  description: [
    "Game rules and reference entries (conditions, skills, damage types, languages...): by `name` or `search`.",
    'E.g. {"name": "Grappled"}, {"search": "what happens when I fall"}.',
  ].join("\n"),
  selector: {
    param: "rule_type",
    schema: vocab(RULE_TYPES, "", {
      conditions: "condition",
      ability: "ability-score",
      "spell-school": "magic-school",
      school: "magic-school",
      property: "weapon-property",
    }).optional(),
    kinds: (a) => (a.rule_type ? RULE_TYPE_KINDS[a.rule_type as RuleType] : ALL_RULE_KINDS),
  },
});
