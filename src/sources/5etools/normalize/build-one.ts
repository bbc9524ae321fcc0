/** One checked 5etools record → its canonical entity, with what the rest of the file adds to it (pure). */
import type { ClassFeature, Ref, SpellData } from "../../../entities/kinds.ts";
import type { Base, DocRef } from "../../../entities/normalize/build.ts";
import {
  backgroundEntity,
  classEntity,
  featEntity,
  speciesEntity,
} from "../../../entities/normalize/canonical/character.ts";
import { creatureEntity } from "../../../entities/normalize/canonical/creature.ts";
import {
  armorEntity,
  itemEntity,
  magicItemEntity,
  weaponEntity,
} from "../../../entities/normalize/canonical/equipment.ts";
import {
  conditionEntity,
  languageEntity,
  weaponPropertyEntity,
} from "../../../entities/normalize/canonical/reference.ts";
import { spellEntity } from "../../../entities/normalize/canonical/spell.ts";
import { type Entity, type EntityKind, type JsonObject, slugify } from "../../../entities/types.ts";
import { buildBackground, buildClass, buildFeat, buildSpecies, buildSubclass, featureOf } from "./character.ts";
import { type FileContext, lines, lower, text } from "./common.ts";
import { buildCreature, type LegendaryGroup } from "./creature.ts";
import { buildArmor, buildItem, buildMagicItem, buildWeapon, itemKind, variantAsItem } from "./item.ts";
import { buildSpell } from "./spell.ts";
import { rec } from "../../../entities/normalize/read.ts";

export const FIVETOOLS_SOURCE = "5etools" as const;

/** What the whole file tells a record's builder: the folded records and the parents built so far. */
export interface Lookups {
  /** A unique entity key in a document: `<document key>_<slug of slugSource>`. */
  keyFor: (docKey: string, kind: EntityKind, slugSource: string) => string;
  fileUrl: string;
  /** Races and classes built so far (they come before their children), by lower-case name. */
  raceRefs: Map<string, Ref>;
  classRefs: Map<string, Ref>;
  /** The names of the subraces and subclasses in the file, by their parent's lower-case name. */
  subraceOf: Map<string, string[]>;
  subclassOf: Map<string, string[]>;
  /** `<type>\0<lower-case name>` → the text of its fluff record. */
  fluff: Map<string, string>;
  groups: Map<string, LegendaryGroup>;
  roll20: Map<string, JsonObject>;
  classFeatures: JsonObject[];
  subclassFeatures: JsonObject[];
  extraByType: Map<string, string[]>;
}

/** One record of `type` named `name`; `outside`: the store's spell a copy's missing base was found as. */
export function buildOne(
  type: string,
  d: JsonObject,
  name: string,
  doc: DocRef,
  ctx: FileContext,
  l: Lookups,
  outside: SpellData | null,
): Entity | { skip: string } {
  const src = FIVETOOLS_SOURCE;
  const base = (kind: EntityKind, slugSource: string = name): Base => ({
    key: l.keyFor(doc.key, kind, slugSource),
    name,
    doc,
    url: `${l.fileUrl}#${encodeURIComponent(type)}/${encodeURIComponent(name)}`,
  });
  const fluffOf = (t: string) => {
    const own = rec(d.fluff) ? text(rec(d.fluff)!.entries, ctx) : "";
    return own || l.fluff.get(`${t}\u0000${name.toLowerCase()}`) || null;
  };
  /** The file's subraces or subclasses of this record, named by `label`. */
  const childRefs = (of: Map<string, string[]>, label: (s: string) => string): Ref[] =>
    (of.get(name.toLowerCase()) ?? []).map((s) => ({ key: `${doc.key}_${slugify(`${name} ${s}`)}`, name: label(s) }));
  /** `desc` with the record's fluff after it. */
  const withFluff = (desc: string | null, t: string) => [desc, fluffOf(t)].filter(Boolean).join("\n");
  switch (type) {
    case "spell": {
      const s = buildSpell(d, ctx, l.roll20.get(name.toLowerCase()) ?? null, outside);
      s.desc = withFluff(s.desc, "spell");
      return spellEntity(src, base("spell"), s);
    }
    case "monster": {
      const g = rec(d.legendaryGroup);
      const group = g ? (l.groups.get(lower(g.name)) ?? null) : null;
      const { data, keys } = buildCreature(d, ctx, group, fluffOf("monster"));
      return creatureEntity(src, base("creature"), data, keys);
    }
    case "item":
    case "baseitem": {
      const kind = itemKind(d, ctx);
      const letterType = typeof d.type === "string" ? d.type.split("|")[0]! : "";
      const extra = [...(l.extraByType.get(letterType) ?? []), fluffOf("item")].filter((x): x is string => !!x);
      // An item of a type the file defines gets no extra text, not even its fluff.
      if (kind === "magic_item")
        return magicItemEntity(src, base(kind), buildMagicItem(d, ctx, ctx.itemTypes.has(letterType) ? [] : extra));
      if (kind === "weapon") return weaponEntity(src, base(kind), buildWeapon(d, ctx));
      if (kind === "armor") return armorEntity(src, base(kind), buildArmor(d, ctx));
      return itemEntity(src, base("item"), buildItem(d, ctx));
    }
    case "magicvariant": {
      const { item, extra } = variantAsItem(d, ctx);
      return magicItemEntity(src, base("magic_item"), buildMagicItem(item, ctx, extra));
    }
    case "race": {
      const b = base("species");
      l.raceRefs.set(name.toLowerCase(), { key: b.key, name });
      const subs = childRefs(l.subraceOf, (s) => `${name} (${s})`);
      const data = buildSpecies(d, ctx, subs, null);
      data.desc = withFluff(data.desc, "race") || null;
      return speciesEntity(src, b, data);
    }
    case "subrace": {
      const raceName = typeof d.raceName === "string" ? d.raceName.trim() : "";
      if (!raceName) return { skip: "the subrace names no raceName" };
      const parent = l.raceRefs.get(raceName.toLowerCase()) ?? { key: slugify(raceName), name: raceName };
      const b = { ...base("subspecies", `${raceName} ${name}`), name: `${raceName} (${name})` };
      return speciesEntity(src, b, buildSpecies(d, ctx, [], parent));
    }
    case "feat":
    case "optionalfeature":
      return featEntity(src, base("feat"), buildFeat(d, ctx, type === "optionalfeature"));
    case "background": {
      const data = buildBackground(d, ctx);
      data.desc = withFluff(data.desc, "background") || null;
      return backgroundEntity(src, base("background"), data);
    }
    case "class": {
      const b = base("class");
      l.classRefs.set(name.toLowerCase(), { key: b.key, name });
      const feats = l.classFeatures
        .filter((f) => lower(f.className) === name.toLowerCase())
        .map((f) => featureOf(f, ctx));
      const subs = childRefs(l.subclassOf, (s) => s);
      return classEntity(src, b, buildClass(d, ctx, feats, subs));
    }
    case "subclass": {
      const className = typeof d.className === "string" ? d.className.trim() : "";
      if (!className) return { skip: "the subclass names no className" };
      const parent = l.classRefs.get(className.toLowerCase()) ?? { key: slugify(className), name: className };
      const short = lower(d.shortName) || name.toLowerCase();
      const feats: ClassFeature[] = l.subclassFeatures
        .filter(
          (f) =>
            lower(f.className) === className.toLowerCase() &&
            (lower(f.subclassShortName) === short || lower(f.subclassShortName) === name.toLowerCase()),
        )
        .map((f) => featureOf(f, ctx));
      return classEntity(src, base("subclass", `${className} ${name}`), buildSubclass(parent, feats, ctx, d));
    }
    case "condition":
    case "disease":
    case "status": {
      const label = type === "disease" ? "Disease." : type === "status" ? "Status." : null;
      const desc = [label, withFluff(text(d.entries, ctx), "condition")].filter(Boolean).join("\n");
      return conditionEntity(src, base("condition"), desc);
    }
    case "language":
      return languageEntity(src, base("language"), {
        desc: withFluff(text(d.entries, ctx), "language") || null,
        type: typeof d.type === "string" ? d.type.toLowerCase() : null,
        script: typeof d.script === "string" ? d.script : null,
        typical_speakers: lines(d.typicalSpeakers, ctx).join(", ") || null,
      });
    case "itemProperty":
      return weaponPropertyEntity(src, base("weapon_property"), {
        desc: text(d.entries ?? d.entriesTemplate, ctx),
        type: null,
      });
    default:
      return { skip: `unknown record type "${type}"` };
  }
}
