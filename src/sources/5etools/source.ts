/**
 * 5etools homebrew: read from `.json` files by `lorekeeper import`, never synced, so it has no content
 * types and no session. It has no URLs: entities cite the file they came from. See README.md.
 */
import type { Source } from "../source.ts";

export const fivetools: Source = {
  id: "5etools",
  label: "5etools homebrew",
  short: "5etools",
  contentTypes: [],
  byDefault: () => false,
  homebrew: { format: "5etools", legend: "imported 5etools homebrew (.json)", extension: ".json" },
};
