/**
 * Open5e v2 reference data. One entity per upstream record: a core record like `grappled` with
 * srd-2014, srd-2024 and a5e-ag texts is ONE condition whose `data.descriptions` holds every
 * document's text and whose `desc` is the main one; the search text includes them all.
 */
import type { DocDescription } from "../../../entities/kinds.ts";
import type { Entity } from "../../../entities/types.ts";
import { runRecords, type Base } from "../../../entities/normalize/build.ts";
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
} from "../../../entities/normalize/canonical/reference.ts";
import { arr, bool, int, isRec, rec, recs, refKey, str, type Rec } from "../../../entities/normalize/read.ts";
import { titleCase } from "../../../entities/normalize/text.ts";
import type { NormalizeContext, NormalizeResult } from "../../../entities/normalize/types.ts";
import { abilityName } from "../../../entities/normalize/vocab.ts";
import { v2Base, v2Key, v2Normalizer, V2Record, V2Unnamed, v2Url } from "./common.ts";

/** Game system of a record's document object ("5e-2014"); core concepts are 5e 2014 when unstated. */
const DEFAULT_GAMESYSTEM = "5e-2014";

/**
 * Every document's text of a record, in upstream order (texts of one document joined), and the main
 * one: the record's own document's, else its game system's, else the first; else the record's `desc`.
 */
function describe(r: Rec, ownDoc: string, ctx: NormalizeContext) {
  const groups = new Map<string, { texts: string[]; system: string | null }>();
  for (const d of recs(r.descriptions)) {
    const text = str(d.desc);
    const docKey = refKey(d.document)?.toLowerCase() ?? ownDoc;
    if (!text) continue;
    const g = groups.get(docKey) ?? groups.set(docKey, { texts: [], system: refKey(d.gamesystem) }).get(docKey)!;
    g.texts.push(text);
  }
  const descriptions: DocDescription[] = [...groups].map(([docKey, g]) => ({
    document_key: docKey,
    document_name:
      ctx.documents.get(docKey)?.name ??
      (docKey === ownDoc && isRec(r.document) ? str(r.document.name) : null) ??
      docKey,
    desc: g.texts.join("\n\n"),
  }));
  if (descriptions.length === 0) return { desc: str(r.desc) ?? "", descriptions };
  const system = refKey(rec(r.document)?.gamesystem) ?? DEFAULT_GAMESYSTEM;
  const main =
    groups.get(ownDoc)?.texts.join("\n\n") ??
    [...groups].find(([, g]) => g.system === system)?.[1].texts.join("\n\n") ??
    descriptions[0]!.desc;
  return { desc: main, descriptions };
}

type Make = (b: Base, d: ReturnType<typeof describe>, r: Rec) => Entity;

function described(endpoint: string, make: Make, unnamed = false) {
  return (records: unknown[], ctx: NormalizeContext): NormalizeResult =>
    runRecords(records, unnamed ? V2Unnamed : V2Record, (r) => {
      const b = v2Base(ctx, endpoint, r, str(r.name) ?? titleCase(v2Key(r)));
      const d = describe(r, b.doc.key, ctx);
      const e = make(b, d, r);
      // A core record carries each book's wording: a documents filter on those books finds it too.
      const also = d.descriptions.map((x) => x.document_key).filter((k) => k !== e.document_key);
      if (also.length) e.filters.also_documents = also;
      return e;
    });
}

export const normalizeV2Conditions = described("conditions", (b, d) =>
  conditionEntity("open5e_v2", b, d.desc, d.descriptions),
);
export const normalizeV2DamageTypes = described("damagetypes", (b, d) =>
  damageTypeEntity("open5e_v2", b, d.desc, d.descriptions),
);
export const normalizeV2Skills = described("skills", (b, d, r) =>
  skillEntity("open5e_v2", b, { desc: d.desc, ability: abilityName(refKey(r.ability)), descriptions: d.descriptions }),
);
export const normalizeV2Abilities = described("abilities", (b, d, r) =>
  abilityScoreEntity("open5e_v2", b, {
    desc: [str(r.short_desc) ? `${b.name}, ${str(r.short_desc)}.` : null, d.desc].filter(Boolean).join("\n\n"),
    abbreviation: (str(r.key) ?? "").toUpperCase().slice(0, 3) || null,
    full_name: str(r.name),
    skills: arr(r.skills).flatMap((s) => refKey(s) || []),
    descriptions: d.descriptions,
  }),
);
export const normalizeV2Alignments = described(
  "alignments",
  (b, d, r) =>
    alignmentEntity("open5e_v2", b, { desc: d.desc, abbreviation: str(r.short_name), descriptions: d.descriptions }),
  true,
);

export const normalizeV2SpellSchools = v2Normalizer("spellschools", (r, b) =>
  magicSchoolEntity("open5e_v2", b, { desc: str(r.desc) ?? "" }),
);

export const normalizeV2WeaponProperties = v2Normalizer("weaponproperties", (r, b) =>
  weaponPropertyEntity("open5e_v2", b, { desc: str(r.desc) ?? "", type: str(r.type)?.toLowerCase() ?? null }),
);

export const normalizeV2Languages = v2Normalizer("languages", (r, b) => {
  const type = bool(r.is_secret) ? "secret" : bool(r.is_exotic) ? "exotic" : "standard";
  return languageEntity("open5e_v2", b, {
    desc: str(r.desc),
    type,
    script: str(r.script_language) ? titleCase(str(r.script_language)!) : null,
    typical_speakers: null,
  });
});

/** /rulesets/ → one rule_section per ruleset and one rule per embedded rule (section = ruleset name). */
export const normalizeV2Rulesets = v2Normalizer("rulesets", (r, section, ctx) => {
  const rules = recs(r.rules)
    .map((x, i) => ({ x, i, key: str(x.key) ?? (str(x.url) ? refKey(x.url) : null), name: str(x.name) }))
    .filter((x): x is typeof x & { key: string; name: string } => !!x.key && !!x.name)
    .sort((p, q) => (int(p.x.index) ?? p.i) - (int(q.x.index) ?? q.i));
  const out: Entity[] = [
    ruleSectionEntity("open5e_v2", section, {
      desc: str(r.desc) ?? "",
      rules: rules.map((x) => ({ key: x.key, name: x.name })),
    }),
  ];
  for (const { x, key, name, i } of rules) {
    const docKey = refKey(x.document)?.toLowerCase();
    const doc =
      docKey && docKey !== section.doc.key
        ? { key: docKey, name: ctx.documents.get(docKey)?.name ?? docKey }
        : section.doc;
    out.push(
      ruleEntity(
        "open5e_v2",
        { key, name, doc, url: v2Url(ctx, "rules", key) },
        {
          desc: str(x.desc) ?? "",
          section: section.name,
          section_key: section.key,
          order: int(x.index) ?? i + 1,
        },
      ),
    );
  }
  return out;
});
