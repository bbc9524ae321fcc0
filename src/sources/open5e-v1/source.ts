/** Open5e v1 (opt-in: a frozen data set without SRD 5.2); its documents borrow v2's names when v2 answers. */
import { normalizeOpen5eV1Documents } from "../../entities/normalize/documents.ts";
import { log } from "../../log.ts";
import { open5eSource } from "../open5e/source.ts";
import { OPEN5E_V1_TYPES } from "./content-types.ts";

export const open5eV1 = open5eSource(
  "v1",
  { id: "open5e_v1", label: "Open5e v1", short: "v1", contentTypes: OPEN5E_V1_TYPES, byDefault: () => false },
  async (list, run) => {
    const v1 = await list("documents");
    const v2 = await run.documentsOf("open5e_v2").catch((err: unknown) => {
      log.debug("v2 documents unavailable while syncing v1", err);
      return [];
    });
    return normalizeOpen5eV1Documents(v1, v2);
  },
);
