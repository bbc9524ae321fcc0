/**
 * OrcBrew homebrew: read from `.orcbrew` files by `lorekeeper import` (ingest/import.ts), never
 * synced, so it has no content types and no session. Its parts live beside this file: the EDN reader
 * (edn.ts), packs (packs.ts) and the pure normalizers (normalize/). It has no URLs: entities cite the
 * file they came from.
 */
import type { Source } from "../source.ts";

export const orcbrew: Source = {
  id: "orcbrew",
  label: "OrcBrew",
  short: "orcbrew",
  contentTypes: [],
  byDefault: () => false,
  homebrew: { format: "OrcBrew", legend: "imported OrcBrew packs (.orcbrew)", extension: ".orcbrew" },
  url: () => {
    throw new Error("OrcBrew entities have no upstream URL (they cite their file)");
  },
};
