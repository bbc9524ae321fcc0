/**
 * OrcBrew homebrew: read from `.orcbrew` files by `lorekeeper import` (ingest/import.ts), never
 * synced, so it has no content types, no session and no URLs (entities cite their file).
 */
import type { Source } from "../source.ts";

export const orcbrew: Source = {
  id: "orcbrew",
  label: "OrcBrew",
  short: "orcbrew",
  contentTypes: [],
  byDefault: () => false,
  homebrew: { format: "OrcBrew", legend: "imported OrcBrew packs (.orcbrew)", extension: ".orcbrew" },
};
