/**
 * Open5e v2 reference data: conditions, damagetypes, abilities, skills, alignments (text per
 * document in `descriptions[]`), spellschools, weaponproperties, languages, rulesets (+ their rules).
 *
 * Records with `descriptions[]` are split into one entity per description document: a core record
 * like `grappled` (document "core") with srd-2014, srd-2024 and a5e-ag texts becomes three
 * conditions, keyed `srd-2014:grappled`, ... The key stays unprefixed when the description's
 * document is the record's own document. So a document filter (e.g. srd-2014) finds them.
 */
import type { Entity } from "../../types.ts";
import { runRecords, type Base } from "../build.ts";
import {
  abilityScoreEntity,
  alignmentEntity,
  conditionEntity,
  damageTypeEntity,
  languageEntity,
  magicSchoolEntity,
  ruleEntity,
  ruleSectionEntity,
  skillEntity,
  weaponPropertyEntity,
} from "../canonical/reference.ts";
import { arr, bool, int, recs, refKey, str, type Rec } from "../read.ts";
import { titleCase } from "../text.ts";
import type { NormalizeContext, NormalizeResult } from "../types.ts";
import { abilityName } from "../vocab.ts";
import { V2Record, V2Unnamed, v2Base, v2Doc, v2Key, v2Url } from "./common.ts";

/** One (base, desc) per description document; falls back to the record's own `desc`. */
export function perDescription(r: Rec & { key?: string; url?: string }, ctx: NormalizeContext, endpoint: string, name: string): { b: Base; desc: string }[] {
  const key = v2Key(r);
  const url = v2Url(ctx, endpoint, key);
  const own = r.document !== undefined ? v2Doc(r.document, ctx) : null;
  const groups = new Map<string, string[]>();
  for (const d of recs(r.descriptions)) {
    const text = str(d.desc);
    const docKey = refKey(d.document)?.toLowerCase() ?? own?.key;
    if (!text || !docKey) continue;
    (groups.get(docKey) ?? groups.set(docKey, []).get(docKey)!).push(text);
  }
  if (groups.size === 0) {
    if (!own) throw new Error("record has no document");
    return [{ b: { key, name, doc: own, url }, desc: str(r.desc) ?? "" }];
  }
  return [...groups].map(([docKey, texts]) => ({
    b: {
      key: own && docKey === own.key ? key : `${docKey}:${key}`,
      name,
      doc: own && docKey === own.key ? own : { key: docKey, name: ctx.documents.get(docKey)?.name ?? docKey },
      url,
    },
    desc: texts.join("\n\n"),
  }));
}

type Make = (b: Base, desc: string, r: Rec) => Entity;

function described(endpoint: string, make: Make, unnamed = false) {
  return (records: unknown[], ctx: NormalizeContext): NormalizeResult =>
    runRecords(records, unnamed ? V2Unnamed : V2Record, (r) => {
      const name = str(r.name) ?? titleCase(v2Key(r));
      return perDescription(r, ctx, endpoint, name).map(({ b, desc }) => make(b, desc, r));
    });
}

export const normalizeV2Conditions = described("conditions", (b, desc) => conditionEntity("open5e_v2", b, desc));
export const normalizeV2DamageTypes = described("damagetypes", (b, desc) => damageTypeEntity("open5e_v2", b, desc));
export const normalizeV2Skills = described("skills", (b, desc, r) => skillEntity("open5e_v2", b, { desc, ability: abilityName(refKey(r.ability)) }));
export const normalizeV2Abilities = described("abilities", (b, desc, r) =>
  abilityScoreEntity("open5e_v2", b, {
    desc: [str(r.short_desc) ? `${b.name}, ${str(r.short_desc)}.` : null, desc].filter(Boolean).join("\n\n"),
    abbreviation: (str(r.key) ?? "").toUpperCase().slice(0, 3) || null,
    full_name: str(r.name),
    skills: arr(r.skills).map((s) => refKey(s)).filter((s): s is string => !!s),
  }),
);
export const normalizeV2Alignments = described(
  "alignments",
  (b, desc, r) => alignmentEntity("open5e_v2", b, { desc, abbreviation: str(r.short_name) }),
  true,
);

export function normalizeV2SpellSchools(records: unknown[], ctx: NormalizeContext): NormalizeResult {
  return runRecords(records, V2Record, (r) => magicSchoolEntity("open5e_v2", v2Base(ctx, "spellschools", r), str(r.desc) ?? ""));
}

export function normalizeV2WeaponProperties(records: unknown[], ctx: NormalizeContext): NormalizeResult {
  return runRecords(records, V2Record, (r) =>
    weaponPropertyEntity("open5e_v2", v2Base(ctx, "weaponproperties", r), { desc: str(r.desc) ?? "", type: str(r.type)?.toLowerCase() ?? null }),
  );
}

export function normalizeV2Languages(records: unknown[], ctx: NormalizeContext): NormalizeResult {
  return runRecords(records, V2Record, (r) => {
    const type = bool(r.is_secret) ? "secret" : bool(r.is_exotic) ? "exotic" : "standard";
    return languageEntity("open5e_v2", v2Base(ctx, "languages", r), {
      desc: str(r.desc),
      type,
      script: str(r.script_language) ? titleCase(str(r.script_language)!) : null,
      typical_speakers: null,
    });
  });
}

/** /rulesets/ → one rule_section per ruleset and one rule per embedded rule (section = ruleset name). */
export function normalizeV2Rulesets(records: unknown[], ctx: NormalizeContext): NormalizeResult {
  return runRecords(records, V2Record, (r) => {
    const section = v2Base(ctx, "rulesets", r);
    const rules = recs(r.rules)
      .map((x, i) => ({ x, i, key: str(x.key) ?? (str(x.url) ? refKey(x.url) : null), name: str(x.name) }))
      .filter((x): x is typeof x & { key: string; name: string } => !!x.key && !!x.name)
      .sort((p, q) => (int(p.x.index) ?? p.i) - (int(q.x.index) ?? q.i));
    const out: Entity[] = [ruleSectionEntity("open5e_v2", section, { desc: str(r.desc) ?? "", rules: rules.map((x) => ({ key: x.key, name: x.name })) })];
    for (const { x, key, name, i } of rules) {
      const docKey = refKey(x.document)?.toLowerCase();
      const doc = docKey && docKey !== section.doc.key ? { key: docKey, name: ctx.documents.get(docKey)?.name ?? docKey } : section.doc;
      out.push(
        ruleEntity("open5e_v2", { key, name, doc, url: v2Url(ctx, "rules", key) }, {
          desc: str(x.desc) ?? "",
          section: section.name,
          section_key: section.key,
          order: int(x.index) ?? i + 1,
        }),
      );
    }
    return out;
  });
}

