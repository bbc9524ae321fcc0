/** The lead of a profiled entity's search text: its plain-words profile, then the names people use for it. Pure. */
import { commonNamesLine } from "../../creature-profiles.ts";

/** What every plain-words profile entry holds (creatures, spells, magic items, rules). */
export interface ProfileWords {
  profile: string;
  names: readonly string[];
}

/** "Makes falling creatures drift down … Also called slow fall, featherfall." (null without a profile) */
export function profileLead(p: ProfileWords | null | undefined): string | null {
  return p ? [p.profile, commonNamesLine(p)].filter(Boolean).join(" ") : null;
}
