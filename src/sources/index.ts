/**
 * Every content source, in order of preference: when two sources carry the same entity of a
 * document, the earlier one answers (store/duplicates.ts), `lorekeeper documents` names it first,
 * and a sync visits the sources in this order.
 */
import type { Config } from "../config.ts";
import type { DocumentSource } from "../entities/types.ts";
import { dnd5eApi } from "./dnd5eapi/source.ts";
import { open5eV1 } from "./open5e-v1/source.ts";
import { open5eV2 } from "./open5e-v2/source.ts";
import { fivetools } from "./5etools/source.ts";
import { orcbrew } from "./orcbrew/source.ts";
import type { BaseUrlSetting, Source } from "./source.ts";

/** Checked by the compiler: every `DocumentSource` has exactly one source. */
const BY_ID = {
  open5e_v2: open5eV2,
  dnd5e_api: dnd5eApi,
  open5e_v1: open5eV1,
  orcbrew,
  "5etools": fivetools,
} satisfies Record<DocumentSource, Source>;

export const SOURCES: readonly Source[] = Object.values(BY_ID);

export function sourceById(id: DocumentSource): Source {
  return BY_ID[id];
}

/** A source's place in `SOURCES`; an id no source has (a newer store's) comes last. */
export function sourceRank(id: string): number {
  const i = SOURCES.findIndex((s) => s.id === id);
  return i < 0 ? SOURCES.length : i;
}

/** Homebrew sources → their file format's name ("orcbrew" → "OrcBrew"), from each source's `homebrew` hook. */
export const HOMEBREW_FORMATS: Readonly<Record<string, string>> = Object.fromEntries(
  SOURCES.flatMap((s) => (s.homebrew ? [[s.id, s.homebrew.format]] : [])),
);

/** The variables that move the upstream APIs to a mirror, each once. */
export const UPSTREAM_ENV_VARS: readonly string[] = [
  ...new Set(SOURCES.flatMap((s) => (s.upstream ? [s.upstream.envVar] : []))),
];

/** What `lorekeeper import` takes, as messages write it: "<file.orcbrew | file.json>". */
const homebrewFiles = SOURCES.flatMap((s) => (s.homebrew ? [`file${s.homebrew.extension}`] : []));
export const HOMEBREW_FILES = `<${homebrewFiles.join(" | ")}>`;

/** The sources a sync reaches over HTTP, with their configured base URLs (a mirror when its variable is set). */
export function upstreamsOf(config: Config, sources: readonly Source[] = SOURCES) {
  return sources.flatMap((s) => {
    const api = s.upstream;
    return api ? [{ source: s, api, baseUrl: config[api.baseUrlSetting] }] : [];
  });
}

/** Every upstream's variable set to `baseUrl`, for a child process (a mirror serving them all; a test's fake). */
export function upstreamEnvAt(baseUrl: string): Record<string, string> {
  return Object.fromEntries(UPSTREAM_ENV_VARS.map((v) => [v, baseUrl]));
}

/** Every upstream's base URL set to `baseUrl` (a mirror serving them all; the tests' fake upstream). */
export function upstreamsAt(baseUrl: string): Partial<Record<BaseUrlSetting, string>> {
  return Object.fromEntries(SOURCES.flatMap((s) => (s.upstream ? [[s.upstream.baseUrlSetting, baseUrl]] : [])));
}

export type { FetchedRecords, FetchProgress, Source, SourceRun, SourceSession, UpstreamApi } from "./source.ts";
