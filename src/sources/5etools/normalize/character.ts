/** 5etools races, subraces, feats, optional features, backgrounds, classes and subclasses → canonical data (pure). */
import type {
  BackgroundData,
  ClassData,
  ClassFeature,
  FeatData,
  NamedText,
  Ref,
  SpeciesData,
} from "../../../entities/kinds.ts";
import type { JsonObject, JsonValue } from "../../../entities/types.ts";
import {
  darkvisionTrait,
  hitPoints,
  sortFeatures,
  subclassData,
} from "../../../entities/normalize/canonical/character.ts";
import { ordinal } from "../../../entities/normalize/text.ts";
import { abilityTitle } from "../../../entities/normalize/vocab.ts";
import {
  abilityText,
  type FileContext,
  joinTexts,
  line,
  lines,
  listText,
  paras,
  proficiencyText,
  sizeWord,
  strings,
  text,
} from "./common.ts";
import { arr, num, own, rec, recs } from "../../../entities/normalize/read.ts";

/** Named blocks of `entries` as traits; unnamed paragraphs as the description. */
function traitsOf(entries: JsonValue | undefined, ctx: FileContext): { desc: string | null; traits: NamedText[] } {
  const desc: string[] = [];
  const traits: NamedText[] = [];
  const walk = (xs: JsonValue[]) => {
    for (const e of xs) {
      const o = rec(e);
      if (o && typeof o.name === "string")
        traits.push({ name: line(o.name, ctx) ?? "", desc: text(o.entries ?? o.entry ?? o.items, ctx) });
      else if (o && o.type === "section") walk(arr(o.entries));
      else desc.push(...paras(e, ctx));
    }
  };
  walk(arr(entries));
  return { desc: desc.join("\n") || null, traits };
}

function walkSpeed(v: JsonValue | undefined): number | null {
  if (typeof v === "number") return v;
  const o = rec(v);
  return o ? num(o.walk) : null;
}

export function buildSpecies(d: JsonObject, ctx: FileContext, subspecies: Ref[], parent: Ref | null): SpeciesData {
  const { desc, traits } = traitsOf(d.entries, ctx);
  const has = (n: string) => traits.some((t) => t.name.toLowerCase() === n);
  const extra: NamedText[] = [];
  const asi = abilityText(d.ability);
  if (asi && !has("ability score increase")) extra.push({ name: "Ability Score Increase", desc: asi });
  const dv = num(d.darkvision);
  if (dv !== null && !has("darkvision")) extra.push(darkvisionTrait(dv));
  const langs = proficiencyText(d.languageProficiencies, ctx);
  if (langs && !has("languages")) extra.push({ name: "Languages", desc: langs });
  const skills = proficiencyText(d.skillProficiencies, ctx);
  if (skills) extra.push({ name: "Skill Proficiencies", desc: skills });
  const other = Object.entries(rec(d.speed) ?? {})
    .filter(([k, x]) => k !== "walk" && (typeof x === "number" || x === true))
    .map(([k, x]) => `${k} ${x === true ? "equal to your walking speed" : `${x} ft.`}`);
  if (other.length && !has("speed"))
    extra.push({ name: "Speed", desc: `Walking ${walkSpeed(d.speed) ?? "?"} ft.; ${other.join(", ")}` });
  return {
    desc,
    size: sizeWord(d.size),
    speed: walkSpeed(d.speed),
    traits: [...extra, ...traits],
    subspecies,
    subspecies_of: parent,
  };
}

const FEAT_CATEGORY: Readonly<Record<string, string>> = {
  G: "general",
  O: "origin",
  FS: "fighting style",
  EB: "epic boon",
  D: "dragonmark",
};
const OPTION_TYPES: Readonly<Record<string, string>> = {
  EI: "eldritch invocation",
  MM: "metamagic",
  "MV:B": "battle master maneuver",
  "FS:F": "fighting style",
  "FS:R": "fighting style",
  "FS:P": "fighting style",
  "FS:B": "fighting style",
  AI: "artificer infusion",
  PB: "pact boon",
  AS: "arcane shot",
  ED: "elemental discipline",
  RN: "rune",
  OR: "onomancy resonant",
  TT: "traveler's trick",
};

/** `[{ a: 1, b: 2 }, { c: 3 }]` → "A and B or C", each field worded by `one`. */
function anyOfAll(v: JsonValue, one: (k: string, x: JsonValue) => string): string {
  return arr(v)
    .map((o) =>
      Object.entries(rec(o) ?? {})
        .map(([k, x]) => one(k, x))
        .join(" and "),
    )
    .join(" or ");
}

/** One field of a prerequisite in words (null or "" when it adds nothing). */
function prereqPart(k: string, v: JsonValue, ctx: FileContext): string | null {
  const o = rec(v);
  switch (k) {
    case "level": {
      if (typeof v === "number") return `${ordinal(v)} level`;
      const cls = rec(o?.class)?.name;
      return `${ordinal(num(o?.level) ?? 1)} level${typeof cls === "string" ? ` ${cls}` : ""}`;
    }
    case "ability":
      return anyOfAll(v, (ab, n) => `${abilityTitle(ab) ?? ab} ${n} or higher`);
    case "race":
      return joinTexts(
        " or ",
        arr(v).map((r) => [rec(r)?.name, rec(r)?.subrace].filter((x) => typeof x === "string").join(" ")),
      );
    case "spellcasting":
    case "spellcasting2020":
      return v === true ? "the ability to cast at least one spell" : null;
    case "spellcastingFeature":
      return v === true ? "Spellcasting feature" : null;
    case "pact":
      return `Pact of the ${String(v)}`;
    case "patron":
      return `${String(v)} patron`;
    case "proficiency":
      return anyOfAll(v, (t, n) => `proficiency with ${String(n)} ${t}`);
    case "feat":
    case "feature":
    case "optionalfeature":
    case "background":
    case "item":
      return joinTexts(
        " or ",
        arr(v).map((x) => (typeof x === "string" ? (line(x.split("|")[0], ctx) ?? x) : line(rec(x)?.name, ctx))),
      );
    case "spell":
      // "hex" or "toll the dead#c" (5etools marks a cantrip with #c), each with an optional "|source".
      return arr(v)
        .map((x) => (typeof x === "string" ? /^([^|#]+)(?:\|[^#]*)?(#c)?/.exec(x) : null))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => `the ${(line(m[1], ctx) ?? m[1]!).toLowerCase()} ${m[2] ? "cantrip" : "spell"}`)
        .join(" or ");
    case "other":
      return line(v, ctx);
    case "otherSummary":
      return line(o?.entry, ctx) ?? line(o?.entrySummary, ctx);
    case "alignment":
      return `alignment ${arr(v).join(" or ")}`;
    case "campaign":
      return `${arr(v).join(" or ")} campaign`;
    case "psionics":
      return v === true ? "Psionics" : null;
    case "note":
      return null;
    default:
      return typeof v === "string" ? (line(v, ctx) ?? v) : null;
  }
}

function prereqOne(p: JsonObject, ctx: FileContext): string {
  const parts = Object.entries(p).map(([k, v]) => prereqPart(k, v, ctx));
  return joinTexts(" ", [joinTexts(", ", parts), line(p.note, ctx)]);
}

function prerequisiteText(v: JsonValue | undefined, ctx: FileContext): string | null {
  const xs = recs(v).map((p) => prereqOne(p, ctx));
  return joinTexts(" or ", xs) || null;
}

export function buildFeat(d: JsonObject, ctx: FileContext, optional: boolean): FeatData {
  const asi = abilityText(d.ability);
  const benefits = asi ? [`Ability score increase: ${asi}`] : [];
  const cat = typeof d.category === "string" ? (own(FEAT_CATEGORY, d.category) ?? d.category.toLowerCase()) : null;
  // `featureType` is a list in 5etools' schema; hand-made files often write one string ("EI").
  const types = typeof d.featureType === "string" ? [d.featureType] : arr(d.featureType);
  const opt = types.map((x) => (typeof x === "string" ? (own(OPTION_TYPES, x) ?? x) : null)).filter(Boolean)[0];
  return {
    desc: text(d.entries, ctx),
    prerequisite: prerequisiteText(d.prerequisite, ctx),
    benefits,
    type: optional ? (opt ?? "optional feature") : cat,
  };
}

function listItemText(entries: JsonValue | undefined, label: RegExp, ctx: FileContext): string | null {
  for (const e of arr(entries)) {
    const o = rec(e);
    if (o?.type !== "list") continue;
    for (const it of arr(o.items)) {
      const i = rec(it);
      if (i && typeof i.name === "string" && label.test(i.name)) return text(i.entry ?? i.entries, ctx) || null;
    }
  }
  return null;
}

export function buildBackground(d: JsonObject, ctx: FileContext): BackgroundData {
  const named: NamedText[] = [];
  const desc: string[] = [];
  let feature: NamedText | null = null;
  for (const e of arr(d.entries)) {
    const o = rec(e);
    if (o && o.type === "list") continue; // the proficiency list: read below into its fields
    if (o && typeof o.name === "string") {
      const nt = {
        name: (line(o.name, ctx) ?? "").replace(/^Feature:\s*/i, ""),
        desc: text(o.entries ?? o.entry, ctx),
      };
      if (!feature && (rec(o.data)?.isFeature === true || /^feature:/i.test(o.name))) feature = nt;
      else named.push(nt);
    } else desc.push(...paras(e, ctx));
  }
  return {
    desc: desc.join("\n") || null,
    skill_proficiencies: proficiencyText(d.skillProficiencies, ctx) ?? listItemText(d.entries, /skill/i, ctx),
    tool_proficiencies: proficiencyText(d.toolProficiencies, ctx) ?? listItemText(d.entries, /tool/i, ctx),
    languages: proficiencyText(d.languageProficiencies, ctx) ?? listItemText(d.entries, /language/i, ctx),
    equipment: listItemText(d.entries, /equipment/i, ctx),
    feature,
    ability_scores: abilityText(d.ability) ?? listItemText(d.entries, /ability/i, ctx),
    feat:
      arr(d.feats)
        .flatMap((f) => Object.keys(rec(f) ?? {}).map((k) => k.split("|")[0]!))
        .join(", ") || listItemText(d.entries, /^feat/i, ctx),
    benefits: named,
  };
}

const CASTER: Record<string, string> = { full: "full", "1/2": "half", "1/3": "third", pact: "pact", artificer: "half" };

/** The spellcasting ability and caster type a class or subclass record states. */
function casting(d: JsonObject): Pick<ClassData, "spellcasting_ability" | "caster_type"> {
  const p = d.casterProgression;
  return {
    spellcasting_ability: typeof d.spellcastingAbility === "string" ? abilityTitle(d.spellcastingAbility) : null,
    caster_type: typeof p === "string" ? (own(CASTER, p) ?? p) : null,
  };
}

/** A feature record (classFeature / subclassFeature) → a class feature. */
export function featureOf(f: JsonObject, ctx: FileContext): ClassFeature {
  return { name: line(f.name, ctx) ?? "Feature", level: num(f.level), desc: text(f.entries, ctx) };
}

function profList(v: JsonValue | undefined, ctx: FileContext): string | null {
  const one = (x: JsonValue) =>
    typeof x === "string" ? line(x.split("|")[0], ctx) : (line(rec(x)?.proficiency, ctx) ?? line(rec(x)?.full, ctx));
  return joinTexts(", ", arr(v).map(one)) || null;
}

function skillChoice(v: JsonValue | undefined, ctx: FileContext): string | null {
  const out: string[] = [];
  for (const s of arr(v).map((x) => rec(x))) {
    const c = rec(s?.choose);
    const from = strings(c?.from);
    if (from.length) out.push(`choose ${num(c?.count) ?? 1} from ${listText(from, "or")}`);
    else if (s && typeof s.any === "number") out.push(`choose any ${s.any}`);
    else if (s) {
      const p = proficiencyText([s], ctx);
      if (p) out.push(p);
    }
  }
  return out.length ? out.join("; ") : null;
}

export function buildClass(d: JsonObject, ctx: FileContext, features: ClassFeature[], subclasses: Ref[]): ClassData {
  const hd = rec(d.hd);
  const faces = num(hd?.faces);
  const sp = rec(d.startingProficiencies);
  const saves = arr(d.proficiency).flatMap((x) => abilityTitle(x) ?? []);
  const eq = lines(rec(d.startingEquipment)?.default, ctx);
  const fluff = text(d.fluff && rec(d.fluff) ? rec(d.fluff)!.entries : undefined, ctx);
  return {
    desc: fluff || null,
    ...hitPoints(faces, String(d.name ?? "class")),
    saving_throws: saves,
    proficiencies: {
      armor: profList(sp?.armor, ctx),
      weapons: profList(sp?.weapons, ctx),
      tools: profList(sp?.tools, ctx),
      saving_throws: saves.length ? saves.join(", ") : null,
      skills: skillChoice(sp?.skills, ctx),
    },
    equipment: eq.length ? eq.join("\n") : null,
    ...casting(d),
    primary_abilities: arr(d.primaryAbility)
      .flatMap((x) => Object.keys(rec(x) ?? {}))
      .map((a) => abilityTitle(a) ?? a),
    features: sortFeatures(features),
    subclasses,
    subclass_of: null,
    table: null,
  };
}

export function buildSubclass(parent: Ref, features: ClassFeature[], ctx: FileContext, d: JsonObject): ClassData {
  const sorted = sortFeatures(features);
  // The first feature named after the subclass is its introduction (what 5etools shows at the top).
  const intro = sorted.find(
    (f) =>
      f.name.toLowerCase() === String(d.name ?? "").toLowerCase() ||
      f.name.toLowerCase() === String(d.shortName ?? "").toLowerCase(),
  );
  const data = subclassData(
    parent,
    intro?.desc ?? (text(d.entries, ctx) || null),
    sorted.filter((f) => f !== intro),
  );
  const { spellcasting_ability, caster_type } = casting(d);
  if (spellcasting_ability) data.spellcasting_ability = spellcasting_ability;
  if (caster_type !== null) data.caster_type = caster_type;
  return data;
}
