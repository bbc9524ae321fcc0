/**
 * Fidelity mismatches that are explained: the upstream record itself is wrong (checked against the
 * SRD 5.1 text and the other sources of the same document). Each is corrected in the normalizer
 * and stated in the answer's data (`upstream_notes`).
 */
import { V2_WEAPON_ERRATA } from "../src/sources/open5e-v2/normalize/errata.ts";
import type { Correction } from "../src/entities/corrections/apply.ts";
import table from "../src/entities/corrections/srd-2014.json" with { type: "json" };

export interface FidelityException {
  /** the source when not Open5e v2 ("open5e_v1", "dnd5e_api 2014") */
  source?: string;
  kind: string;
  key: string;
  field: string;
  why: string;
}

const ERRATA_WHY =
  "upstream property list disagrees with SRD 5.1, Open5e v1 and the D&D 5e API; " +
  "corrected (src/sources/open5e-v2/normalize/errata.ts), stated in upstream_notes";
const HANDAXE =
  "upstream srd_handaxe has range 20/60 but no Thrown property; SRD 5.1 lists " +
  "the handaxe as Light, Thrown (range 20/60): added, stated in upstream_notes";

export const FIDELITY_EXCEPTIONS: readonly FidelityException[] = [
  ...Object.keys(V2_WEAPON_ERRATA).map((key) => ({ kind: "weapon", key, field: "properties", why: ERRATA_WHY })),
  {
    kind: "weapon",
    key: "srd_crossbow-heavy",
    field: "range_type",
    why: `upstream lists no Ammunition, so its record reads as a melee weapon; ${ERRATA_WHY}`,
  },
  { kind: "weapon", key: "srd_handaxe", field: "properties", why: HANDAXE },
  {
    source: "open5e_v1",
    kind: "creature",
    key: "scarab-ruin",
    field: "speed",
    why: 'upstream abbreviates the burrow speed as "bur."; stored as burrow',
  },
  // Open5e v2 fields the other two SRD 5.1 upstreams transcribe alike: the majority answers (agreement audit).
  ...(table as { corrections: Correction[] }).corrections
    .filter((c) => c.source === "open5e_v2")
    .flatMap((c) =>
      [...new Set([c.field, c.field.split(".")[0]!])].map((field) => ({
        kind: c.kind,
        key: c.key,
        field,
        why:
          `Open5e v1 and the D&D 5e API agree on ${JSON.stringify(c.value)}; corrected to ` +
          `the majority (src/entities/corrections/srd-2014.json), stated in upstream_notes`,
      })),
    ),
];

/**
 * How far a weapon property's count is expected to differ from the raw records (the corrections above, for the weapons
 * `present`), and why.
 */
export function countCorrection(
  kind: string,
  param: string,
  value: string,
  present: ReadonlySet<string>,
): { delta: number; why: string } | undefined {
  if (kind !== "weapon" || param !== "property") return undefined;
  const keys: string[] = [];
  let delta = 0;
  for (const [key, e] of Object.entries(V2_WEAPON_ERRATA)) {
    if (!present.has(key)) continue;
    if ((e.add ?? []).some((p) => p.name.toLowerCase() === value)) delta++, keys.push(`+${key}`);
    if ((e.remove ?? []).some((n) => n.toLowerCase() === value)) delta--, keys.push(`-${key}`);
  }
  if (value === "thrown" && present.has("srd_handaxe")) delta++, keys.push("+srd_handaxe");
  return delta === 0 ? undefined : { delta, why: `corrected upstream records: ${keys.join(" ")}` };
}
