/** OrcBrew races, subraces, backgrounds, feats and languages → canonical entities (pure). */
import type { BackgroundData, FeatData, LanguageData, NamedText, SpeciesData } from "../../../entities/kinds.ts";
import type { JsonObject } from "../../../entities/types.ts";
import { type PackRefs, parentRef } from "./class.ts";
import { equipmentList, humanize, listText, namedTexts, onKeys, str } from "./common.ts";
import { SIZES } from "../../../entities/catalog.ts";
import { darkvisionTrait } from "../../../entities/normalize/canonical/character.ts";
import { abilityTitle } from "../../../entities/normalize/vocab.ts";
import { abilityIncreases, choiceText, innateSpellLines, joinSemi, profsSummary, propsLines } from "./props.ts";
import { arr, int, own, rec } from "../../../entities/normalize/read.ts";

export function buildSpecies(d: JsonObject, itemKey: string, refs: PackRefs, isSub: boolean): SpeciesData {
  const rawSize = str(d.size)?.toLowerCase() ?? null;
  const size = rawSize && (SIZES as readonly string[]).includes(rawSize) ? rawSize : null;
  const speed = int(d.speed);
  const traits: NamedText[] = [];
  const asi = abilityIncreases(d.abilities);
  if (asi) traits.push({ name: "Ability Score Increase", desc: asi });
  if (size) traits.push({ name: "Size", desc: `Your size is ${humanize(size)}.` });
  if (speed !== null && speed > 0) traits.push({ name: "Speed", desc: `Your base walking speed is ${speed} feet.` });
  const dark = int(d.darkvision);
  if (dark !== null && dark > 0) traits.push(darkvisionTrait(dark));
  const profs = profsSummary(d.profs, false);
  const langs = arr(d.languages).flatMap((l) => (typeof l === "string" ? l.trim() : null) || []);
  const langText = joinSemi([langs.length ? listText(langs) : null, profs.languages && `plus ${profs.languages}`]);
  if (langText) traits.push({ name: "Languages", desc: langText });
  const profLines = [
    profs.skills && `Skills: ${profs.skills}`,
    profs.tools && `Tools: ${profs.tools}`,
    profs.weapons && `Weapons: ${profs.weapons}`,
    profs.armor && `Armor: ${profs.armor}`,
  ].filter((x): x is string => !!x);
  if (profLines.length) traits.push({ name: "Proficiencies", desc: profLines.join("\n") });
  // Some hand-made files put props (:flying-speed, :lizardfolk-ac ...) at the top level of the race.
  const looseProps: JsonObject = {};
  for (const k of ["flying-speed", "swimming-speed", "climbing-speed", "lizardfolk-ac", "tortle-ac"])
    if (d[k] !== undefined) looseProps[k] = d[k]!;
  const props = [...propsLines(d.props), ...propsLines(looseProps)];
  if (props.length) traits.push({ name: "Benefits", desc: [...new Set(props)].join("\n") });
  const spells = innateSpellLines(d.spells, (k) => refs.spellName(k));
  if (spells.length) traits.push({ name: "Innate Spellcasting", desc: `You know: ${spells.join("; ")}.` });
  traits.push(...namedTexts(d.traits).map(({ name, desc }) => ({ name, desc })));
  const subspeciesOf = isSub ? parentRef(refs, "races", str(d.race), "race") : null;
  const desc = str(d.help) ?? str(d.description);
  return {
    desc,
    size: size ? humanize(size) : null,
    speed: speed !== null && speed > 0 ? speed : null,
    traits,
    subspecies: isSub ? [] : refs.children("subraces", "race", itemKey),
    subspecies_of: subspeciesOf,
  };
}

export function buildBackground(d: JsonObject): BackgroundData {
  const p = rec(d.profs) ?? {};
  const profs = profsSummary(p, false);
  const traits = namedTexts(d.traits).map(({ name, desc }) => ({ name, desc }));
  const equipment = equipmentList(d, (opts, name) => `one of ${opts}${name ? ` (${name})` : ""}`);
  const gp = int(rec(d.treasure)?.gp);
  if (gp) equipment.push(`a pouch containing ${gp} gp`);
  const langOpts = rec(p["language-options"]);
  const languages = langOpts
    ? onKeys(langOpts.options).includes("any")
      ? `${int(langOpts.choose) ?? 1} of your choice`
      : choiceText(langOpts)
    : profs.languages;
  const desc = str(d.help) ?? str(d.description);
  return {
    desc,
    skill_proficiencies: profs.skills,
    tool_proficiencies: profs.tools,
    languages,
    equipment: equipment.length ? equipment.join(", ") : null,
    feature: traits[0] ?? null,
    ability_scores: abilityIncreases(d.abilities),
    feat: null,
    benefits: traits,
  };
}

const ARMOR_PREREQS: Record<string, string> = { light: "light armor", medium: "medium armor", heavy: "heavy armor" };

function prerequisite(d: JsonObject, refs: PackRefs): string | null {
  const prereqs = arr(d.prereqs).filter((x): x is string => typeof x === "string");
  const abilities = prereqs.map((p) => abilityTitle(p)).filter((x): x is string => x !== null);
  const armor = prereqs.flatMap((p) => own(ARMOR_PREREQS, p) ?? []);
  const parts: string[] = [];
  if (abilities.length) parts.push(`${listText(abilities, "or")} 13 or higher`);
  if (armor.length) parts.push(`Proficiency with ${listText(armor, "or")}`);
  if (prereqs.includes("spellcasting")) parts.push("The ability to cast at least one spell");
  const other = prereqs.filter((p) => !abilityTitle(p) && own(ARMOR_PREREQS, p) === undefined && p !== "spellcasting");
  if (other.length) parts.push(other.map(humanize).join(", "));
  for (const [path, m] of Object.entries(rec(d["path-prereqs"]) ?? {})) {
    const keys = onKeys(m);
    if (!keys.length) continue;
    const type = path === "race" ? "races" : path === "subrace" ? "subraces" : path === "class" ? "classes" : path;
    parts.push(
      `${humanize(path)}: ${listText(
        keys.map((k) => refs.ref(type, k)?.name ?? humanize(k)),
        "or",
      )}`,
    );
  }
  return parts.length ? parts.join("; ") : null;
}

export function buildFeat(d: JsonObject, refs: PackRefs): FeatData {
  const benefits: string[] = [];
  const incs = arr(d["ability-increases"]).filter((x): x is string => typeof x === "string");
  const abilities = incs.map((x) => abilityTitle(x)).filter((x): x is string => x !== null);
  if (abilities.length) benefits.push(`Increase your ${listText(abilities, "or")} score by 1, to a maximum of 20.`);
  if (incs.includes("saves?") && abilities.length)
    benefits.push("You gain proficiency in saving throws using the chosen ability.");
  benefits.push(...propsLines(d.props));
  const sel = onKeys(d.selections);
  if (sel.length) benefits.push(`Choices: ${sel.map((k) => refs.selection(k)?.name ?? humanize(k)).join(", ")}`);
  const desc = str(d.description) ?? str(d.help) ?? "";
  return { desc, prerequisite: prerequisite(d, refs), benefits, type: null };
}

export function buildLanguage(d: JsonObject): LanguageData {
  const desc = str(d.description) ?? str(d.help);
  return { desc, type: null, script: null, typical_speakers: null };
}
