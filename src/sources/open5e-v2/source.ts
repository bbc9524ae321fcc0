/** Open5e v2 (the default source for everything it has): paginated lists, documents with licences and publishers. */
import { normalizeOpen5eDocuments } from "../../entities/normalize/documents.ts";
import { Open5eClient } from "../open5e/client.ts";
import { open5eUrl } from "../open5e/urls.ts";
import { fetchOpen5eAll, fetchOpen5eList } from "../open5e/walk.ts";
import type { Source } from "../source.ts";
import { OPEN5E_V2_TYPES } from "./content-types.ts";

export const open5eV2: Source = {
  id: "open5e_v2",
  label: "Open5e v2",
  short: "v2",
  contentTypes: OPEN5E_V2_TYPES,
  byDefault: () => true,
  url: (baseUrl, t, endpoint = t.endpoint, key) => open5eUrl(baseUrl, "v2", endpoint, key),
  upstream: {
    baseUrlSetting: "open5eBaseUrl",
    envVar: "LOREKEEPER_OPEN5E_BASE_URL",
    probeUrl: (base) => open5eUrl(base, "v2"),
  },
  open(run) {
    const client = new Open5eClient(run.http, { baseUrl: run.config.open5eBaseUrl });
    return {
      baseUrl: run.config.open5eBaseUrl,
      async documents() {
        const docs = await fetchOpen5eAll(client, "v2", "documents", run);
        const [licenses, publishers] = await Promise.all([
          fetchOpen5eAll(client, "v2", "licenses", run).catch(() => []),
          fetchOpen5eAll(client, "v2", "publishers", run).catch(() => []),
        ]);
        return normalizeOpen5eDocuments(docs, licenses, publishers);
      },
      fetch: (_t, endpoint, onProgress) => fetchOpen5eList(client, "v2", endpoint, run, onProgress),
    };
  },
};
