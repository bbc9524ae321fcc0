/**
 * Every content source, in the order a sync visits them. Adding a source = its folder (implementing
 * `Source` from source.ts) + one line here + its id in `DocumentSource` (entities/types.ts).
 */
import type { DocumentSource } from "../entities/types.ts";
import { dnd5eApi } from "./dnd5eapi/source.ts";
import { open5eV1 } from "./open5e-v1/source.ts";
import { open5eV2 } from "./open5e-v2/source.ts";
import { fivetools } from "./5etools/source.ts";
import { orcbrew } from "./orcbrew/source.ts";
import type { Source } from "./source.ts";

/** Checked by the compiler: every `DocumentSource` has exactly one source. */
const BY_ID = { open5e_v2: open5eV2, open5e_v1: open5eV1, dnd5e_api: dnd5eApi, orcbrew, "5etools": fivetools } satisfies Record<DocumentSource, Source>;

export const SOURCES: readonly Source[] = Object.values(BY_ID);

export function sourceById(id: DocumentSource): Source {
  return BY_ID[id];
}

/** Homebrew sources → their file format's name ("orcbrew" → "OrcBrew"), from each source's `homebrew` hook. */
export const HOMEBREW_FORMATS: Readonly<Record<string, string>> = Object.fromEntries(SOURCES.flatMap((s) => (s.homebrew ? [[s.id, s.homebrew.format]] : [])));

export type { FetchedRecords, FetchProgress, Source, SourceRun, SourceSession } from "./source.ts";
