/**
 * Known errors in Open5e v2's SRD 5.1 weapon records, corrected from the document itself: for each
 * weapon below, the SRD 5.1 weapons table, Open5e v1 (`wotc-srd`) and the D&D 5e API (2014) agree
 * with each other and not with Open5e v2 (checked over the whole snapshot; D&D 5e API's "Monk"
 * pseudo-property aside). Each correction is stated in the answer (`upstream_notes`) and listed as an
 * explained exception of the fidelity check (scripts/eval-fidelity-exceptions.ts).
 */
import type { WeaponProperty } from "../../../entities/kinds.ts";

interface WeaponErratum {
  /** properties upstream leaves out */
  add?: WeaponProperty[];
  /** property names upstream has that the weapon does not */
  remove?: string[];
}

const HEAVY: WeaponProperty = { name: "Heavy", detail: null };

export const V2_WEAPON_ERRATA: Readonly<Record<string, WeaponErratum>> = {
  "srd_crossbow-heavy": { add: [{ name: "Ammunition", detail: "range 100/400" }, HEAVY] },
  "srd_crossbow-light": { add: [{ name: "Two-Handed", detail: null }] },
  srd_longbow: { add: [HEAVY] },
  srd_glaive: { add: [HEAVY] },
  srd_greataxe: { add: [HEAVY] },
  srd_greatsword: { add: [HEAVY] },
  srd_halberd: { add: [HEAVY] },
  srd_maul: { add: [HEAVY] },
  srd_pike: { add: [HEAVY] },
  srd_whip: { add: [{ name: "Finesse", detail: null }] },
  srd_trident: { remove: ["Two-Handed"] },
};

/** `props` with the erratum of `key` applied, and a note saying what was corrected (none without an erratum). */
export function applyWeaponErrata(key: string | null, props: WeaponProperty[]) {
  const e = key ? V2_WEAPON_ERRATA[key] : undefined;
  if (!e) return { props, notes: [] };
  const have = new Set(props.map((p) => p.name.toLowerCase()));
  const added = (e.add ?? []).filter((p) => !have.has(p.name.toLowerCase()));
  const drop = new Set((e.remove ?? []).map((n) => n.toLowerCase()));
  const removed = props.filter((p) => drop.has(p.name.toLowerCase()));
  const out = [...props.filter((p) => !drop.has(p.name.toLowerCase())), ...added].sort((a, b) =>
    a.name.toLowerCase().localeCompare(b.name.toLowerCase()),
  );
  const what = [
    added.length ? `omits ${added.map((p) => p.name).join(", ")}` : null,
    removed.length ? `adds ${removed.map((p) => p.name).join(", ")}` : null,
  ]
    .filter(Boolean)
    .join(" and ");
  const notes = what
    ? [
        `Open5e v2 ${what}; the SRD 5.1 weapons table (as Open5e v1 and the D&D 5e API) gives ` +
          `${out.map((p) => (p.detail ? `${p.name} (${p.detail})` : p.name)).join(", ")}. Corrected.`,
      ]
    : [];
  return { props: out, notes };
}
