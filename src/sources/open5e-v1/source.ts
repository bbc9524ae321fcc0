/** Open5e v1 (opt-in: a frozen data set without SRD 5.2); its documents borrow v2's names when v2 answers. */
import { normalizeOpen5eV1Documents } from "../../entities/normalize/documents.ts";
import type { DocumentInfo } from "../../entities/types.ts";
import { log } from "../../log.ts";
import { Open5eClient } from "../open5e/client.ts";
import { open5eUrl } from "../open5e/urls.ts";
import { fetchOpen5eAll, fetchOpen5eList } from "../open5e/walk.ts";
import type { Source } from "../source.ts";
import { OPEN5E_V1_TYPES } from "./content-types.ts";

export const open5eV1: Source = {
  id: "open5e_v1",
  label: "Open5e v1",
  short: "v1",
  contentTypes: OPEN5E_V1_TYPES,
  byDefault: () => false,
  url: (baseUrl, t, endpoint = t.endpoint, key) => open5eUrl(baseUrl, "v1", endpoint, key),
  upstream: {
    baseUrlSetting: "open5eBaseUrl",
    envVar: "LOREKEEPER_OPEN5E_BASE_URL",
    probeUrl: (base) => open5eUrl(base, "v1"),
  },
  open(run) {
    const client = new Open5eClient(run.http, { baseUrl: run.config.open5eBaseUrl });
    return {
      baseUrl: run.config.open5eBaseUrl,
      async documents() {
        const v1 = await fetchOpen5eAll(client, "v1", "documents", run);
        let v2: DocumentInfo[] = [];
        try {
          v2 = await run.documentsOf("open5e_v2");
        } catch (err) {
          log.debug("v2 documents unavailable while syncing v1", err);
        }
        return normalizeOpen5eV1Documents(v1, v2);
      },
      fetch: (_t, endpoint, onProgress) => fetchOpen5eList(client, "v1", endpoint, run, onProgress),
    };
  },
};
