/**
 * The `documents` parameter (decision 3): null/undefined = no filter, [] = empty result, unknown
 * keys = empty result plus a message naming the available documents. Aliases and Open5e v1 slugs
 * resolve to Open5e v2 keys (decision 4: `srd-5e`, `srd-5.1`, `wotc-srd` → `srd-2014`; `srd-5.2` →
 * `srd-2024`; `dmag` → `deepm`, ...) via the normalizer's resolveDocumentKey. Pure: the caller
 * passes the document keys the store knows.
 */
import { resolveDocumentKey } from "../../entities/normalize/documents.ts";

export interface DocumentResolution {
  /** null = no document filter; [] = nothing can match; otherwise the stored keys to keep. */
  keys: string[] | null;
  message?: string;
}

function availableText(known: readonly string[]): string {
  return known.length
    ? `Available documents: ${known.join(", ")}.`
    : "No documents are stored yet (run `lorekeeper sync`).";
}

/** Requested keys against the stored ones (case-insensitive; a key or an alias of one); unknown ones are named. */
export function resolveDocuments(
  requested: readonly string[] | null | undefined,
  known: readonly string[],
): DocumentResolution {
  if (requested === null || requested === undefined) return { keys: null };
  if (requested.length === 0)
    return { keys: [], message: "The documents filter is an empty list, so nothing can match." };
  const cleaned = requested.map((k) => k.trim()).filter((k) => k.length > 0);
  if (cleaned.length === 0)
    return { keys: [], message: "The documents filter holds only blank keys, so nothing can match." };
  const byLower = new Map(known.map((k) => [k.toLowerCase(), k]));
  const keys = new Set<string>();
  const unknown: string[] = [];
  for (const raw of cleaned) {
    const lower = raw.toLowerCase();
    const direct = byLower.get(lower);
    const viaAlias = byLower.get(resolveDocumentKey(lower));
    if (direct) keys.add(direct);
    if (viaAlias) keys.add(viaAlias);
    if (!direct && !viaAlias) unknown.push(raw);
  }
  const quoted = unknown.map((k) => `"${k}"`).join(", ");
  if (keys.size === 0) return { keys: [], message: `No stored document matches ${quoted}. ${availableText(known)}` };
  if (unknown.length === 0) return { keys: [...keys] };
  return { keys: [...keys], message: `Unknown document keys ignored: ${quoted}. ${availableText(known)}` };
}
