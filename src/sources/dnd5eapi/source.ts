/**
 * The D&D 5e API: one list + one detail request per record, two rule sets (2014, 2024) side by side.
 * Without an explicit --source it only supplies what Open5e v2 lacks (spec decision 6): rules, rule
 * sections, proficiencies, and the 2014 classes for their level tables (Open5e v2's SRD 5.1 classes
 * have no class columns: no Sneak Attack, Rages, Ki Points, Slot Level or Invocations Known);
 * everything else it has duplicates the SRD already in v2.
 */
import { dnd5eApiDocuments } from "../../entities/normalize/documents.ts";
import type { ContentType, Dnd5eYear } from "../../entities/normalize/types.ts";
import type { Source } from "../source.ts";
import { Dnd5eApiClient } from "./client.ts";
import { DND5EAPI_TYPES } from "./content-types.ts";
import { dnd5eApiUrl } from "./urls.ts";

/** What `lorekeeper sync` fetches from this API without --source (both years). */
const DND5E_DEFAULT_ENDPOINTS: readonly string[] = ["rules", "rule-sections", "proficiencies"];
/** …and of one year only: the 2014 class levels' class columns (the SRD 5.1 class tables). */
const DND5E_DEFAULT_2014: readonly string[] = ["classes"];

const yearOf = (t: ContentType): Dnd5eYear => t.year ?? "2014";

export const dnd5eApi: Source = {
  id: "dnd5e_api",
  label: "The D&D 5e API",
  short: "api",
  contentTypes: DND5EAPI_TYPES,
  byDefault: (t) =>
    DND5E_DEFAULT_ENDPOINTS.includes(t.endpoint) || (yearOf(t) === "2014" && DND5E_DEFAULT_2014.includes(t.endpoint)),
  upstream: {
    baseUrlSetting: "dnd5eApiBaseUrl",
    envVar: "LOREKEEPER_DND5EAPI_BASE_URL",
    probeUrl: (base) => dnd5eApiUrl(base, "2014"),
  },
  open(run) {
    const client = new Dnd5eApiClient(run.http, { baseUrl: run.config.dnd5eApiBaseUrl });
    const available = new Map<Dnd5eYear, Promise<string[] | null>>();
    return {
      baseUrl: run.config.dnd5eApiBaseUrl,
      documents: async () => dnd5eApiDocuments(run.config.dnd5eApiBaseUrl),
      async fetch(t, endpoint, onProgress) {
        const opts = { force: run.force };
        if (endpoint === "levels") {
          // No endpoint of its own: served per class (/classes/<index>/levels). The class list is the
          // one the main fetch just read (HTTP cache).
          const { indexes } = await client.list(yearOf(t), t.endpoint, opts);
          return { records: await client.classLevels(yearOf(t), indexes, opts), warnings: [], skipped: 0 };
        }
        const progress = (done: number, total: number) => onProgress(done, total, 1);
        const r = await client.fetchAll(yearOf(t), endpoint, { ...opts, onProgress: progress });
        return {
          records: r.records,
          warnings: [...r.warnings, ...r.skipped.map((s) => `skipped ${s.index}: ${s.message}`)],
          skipped: r.skipped.length,
          ...(r.count > r.listed
            ? { incomplete: `the list announced ${r.count} records but carried ${r.listed}` }
            : {}),
        };
      },
      async unavailable(t) {
        const year = yearOf(t);
        const known = available.get(year) ?? client.availableEndpoints(year, { force: run.force }).catch(() => null);
        available.set(year, known);
        const avail = await known;
        return avail && !avail.includes(t.endpoint) ? `${year} has no ${t.endpoint} endpoint` : null;
      },
    };
  },
};
