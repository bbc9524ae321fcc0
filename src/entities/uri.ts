/**
 * Entity addresses: `lorekeeper://<kind>/<key>`, unique and stable across every source and import.
 *
 * Keys are unique only within (source, kind), so the address carries the source except for the
 * sources whose keys never collide with each other: Open5e v2 (the default; bare keys such as
 * `srd_fireball`, `grappled`) and the D&D 5e API (year-prefixed keys such as `2014-cover`). Open5e
 * v1 and OrcBrew keys are qualified: `lorekeeper://condition/open5e_v1:grappled`,
 * `lorekeeper://spell/orcbrew:<key>`. A bare key is looked up in the bare sources only, so syncing
 * v1 or importing a pack never changes what an existing address returns. Pure.
 */
import { DOCUMENT_SOURCES, type DocumentSource } from "./types.ts";

/** Sources addressed by their bare key, in lookup order. */
const BARE_URI_SOURCES: readonly DocumentSource[] = ["open5e_v2", "dnd5e_api"];

/** The key part of an entity's address: "srd_fireball", "open5e_v1:grappled". */
export function uriKey(source: string, key: string): string {
  return (BARE_URI_SOURCES as readonly string[]).includes(source) ? key : `${source}:${key}`;
}

/** The address of an entity of `source` (no default: a v1 or OrcBrew key without its source does not resolve). */
export function entityUri(kind: string, key: string, source: string): string {
  return `lorekeeper://${kind}/${encodeURIComponent(uriKey(source, key)).replace(/%3A/gi, ":")}`;
}

/** The key part of an address → where to look: one source (qualified) or the bare sources in order. */
export function parseUriKey(raw: string): { sources: readonly DocumentSource[]; key: string } {
  const m = /^([a-z0-9_]+):(.+)$/.exec(raw);
  if (m && (DOCUMENT_SOURCES as readonly string[]).includes(m[1]!))
    return { sources: [m[1] as DocumentSource], key: m[2]! };
  return { sources: BARE_URI_SOURCES, key: raw };
}
