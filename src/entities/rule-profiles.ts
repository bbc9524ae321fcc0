/**
 * Plain-words profiles of the core rules and rule sections (SRD 5.1 and SRD 5.2): which questions
 * each entry answers, in the words a DM asks them ("surprise", "reactions per round", "holding my
 * breath"), and the topics people name it by. Reviewed data in src/entities/data/rule-profiles.json
 * (its `provenance` says where it comes from); this module only reads it. Conditions have theirs
 * in condition-words.json. Pure.
 */
import data from "./data/rule-profiles.json" with { type: "json" };
import { isCoreProfileDocument } from "./spell-profiles.ts";

export type RuleProfileKind = "rule" | "rule_section";

export interface RuleProfile {
  /** The record name this entry is filed under ("The Order of Combat"). */
  name: string;
  kind: RuleProfileKind;
  /** Other record names the same entry serves (a source's misspelling: "Rnged Attacks"). */
  also?: string[];
  /** Core documents holding a record this entry serves. */
  documents: string[];
  /** Lower-case sections the entry is limited to, when a document uses the name twice ("Hit Points"). */
  sections?: string[];
  /** Topics and words people name it by ("surprise", "initiative"). */
  names: string[];
  /** One or two plain sentences: what it covers and which questions it answers. */
  profile: string;
}

export const RULE_PROFILES: readonly RuleProfile[] = (data as { profiles: RuleProfile[] }).profiles;

let byKey: Map<string, RuleProfile[]> | undefined;

function index(): Map<string, RuleProfile[]> {
  if (byKey) return byKey;
  byKey = new Map();
  for (const p of RULE_PROFILES) {
    for (const n of [p.name, ...(p.also ?? [])]) {
      const k = `${p.kind}\u0000${n.toLowerCase()}`;
      byKey.set(k, [...(byKey.get(k) ?? []), p]);
    }
  }
  return byKey;
}

/**
 * The profile of a core rule or rule section (null for other documents, and for a name the file
 * lacks): of the entries filed under its kind and name, the one whose sections admit `section`,
 * its own document's before another's.
 */
export function ruleProfile(
  kind: RuleProfileKind,
  name: string,
  documentKey: string,
  section: string | null = null,
): RuleProfile | null {
  if (!isCoreProfileDocument(documentKey)) return null;
  const doc = documentKey.toLowerCase();
  const sec = section?.trim().toLowerCase() ?? null;
  const named = index().get(`${kind}\u0000${name.trim().toLowerCase()}`) ?? [];
  const fits = named.filter((p) => !p.sections || (sec !== null && p.sections.includes(sec)));
  return fits.find((p) => p.documents.includes(doc)) ?? fits[0] ?? null;
}
