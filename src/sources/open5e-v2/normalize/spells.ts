import { readMaterial } from "../../../entities/material.ts";
import { runRecords } from "../../../entities/normalize/build.ts";
import { correctSrd51Classes } from "../../../entities/normalize/srd51-spell-lists.ts";
import { spellEntity } from "../../../entities/normalize/canonical/spell.ts";
import { arr, bool, int, num, refKey, str, uniq } from "../../../entities/normalize/read.ts";
import { capitalize } from "../../../entities/normalize/text.ts";
import type { NormalizeContext, NormalizeResult } from "../../../entities/normalize/types.ts";
import { abilityName, classKey } from "../../../entities/normalize/vocab.ts";
import { v2Base, V2Spell } from "./common.ts";

/** v2 casting times are slugs ("action", "bonus-action", "10minutes"); make them readable. */
function castingTime(raw: unknown): string | null {
  const s = str(raw);
  if (!s) return null;
  const t = s.replace(/-/g, " ").replace(/^(\d+)([a-z])/i, "$1 $2");
  return /^\d/.test(t) ? t : `1 ${t}`;
}

export function normalizeV2Spells(records: unknown[], ctx: NormalizeContext): NormalizeResult {
  return runRecords(records, V2Spell, (r) => {
    const b = v2Base(ctx, "spells", r);
    const shape = str(r.shape_type);
    const rangeFt = int(r.range);
    const rangeText = str(r.range_text) ?? (rangeFt !== null ? `${rangeFt} ${str(r.range_unit) ?? "feet"}` : null);
    const materialText = str(r.material_specified);
    // "0.00" is upstream's "no cost" (Spells That Don't Suck), not a costly component.
    const material = readMaterial(
      "Open5e v2",
      materialText,
      num(r.material_cost) === 0 ? null : str(r.material_cost),
      bool(r.material_consumed),
    );
    const upstreamClasses = uniq(
      arr(r.classes)
        .map(refKey)
        .flatMap((x) => classKey(x) || []),
    );
    const classes =
      b.doc.key === "srd-2014"
        ? correctSrd51Classes("Open5e v2", b.name, upstreamClasses)
        : { classes: upstreamClasses, notes: [] };
    const notes = [...material.notes, ...classes.notes];
    return spellEntity("open5e_v2", b, {
      level: r.level,
      school: refKey(r.school)?.toLowerCase() ?? null,
      casting_time: castingTime(r.casting_time),
      range: rangeText ? capitalize(rangeText) : null,
      range_ft: rangeFt && rangeFt > 0 ? rangeFt : null,
      duration: str(r.duration) ? capitalize(str(r.duration)!) : null,
      concentration: bool(r.concentration) ?? false,
      ritual: bool(r.ritual) ?? false,
      components: {
        verbal: bool(r.verbal) ?? false,
        somatic: bool(r.somatic) ?? false,
        material: bool(r.material) ?? false,
        material_text: materialText,
        material_cost: material.material_cost,
        material_consumed: material.material_consumed,
      },
      desc: str(r.desc) ?? "",
      higher_level: str(r.higher_level),
      classes: classes.classes,
      damage_types: uniq(arr(r.damage_types).flatMap((d) => refKey(d)?.toLowerCase() || [])),
      saving_throw: abilityName(r.saving_throw_ability),
      attack_roll: bool(r.attack_roll),
      damage_roll: str(r.damage_roll),
      area: shape ? { type: shape.toLowerCase(), size_ft: int(r.shape_size) } : null,
      reaction_condition: str(r.reaction_condition),
      ...(notes.length ? { upstream_notes: notes } : {}),
    });
  });
}
