/** Open5e v2 (the default source for everything it has): paginated lists, documents with licences and publishers. */
import { normalizeOpen5eDocuments } from "../../entities/normalize/documents.ts";
import { open5eSource } from "../open5e/source.ts";
import { OPEN5E_V2_TYPES } from "./content-types.ts";

export const open5eV2 = open5eSource(
  "v2",
  { id: "open5e_v2", label: "Open5e v2", short: "v2", contentTypes: OPEN5E_V2_TYPES, byDefault: () => true },
  async (list) => {
    const docs = await list("documents");
    const [licenses, publishers] = await Promise.all([
      list("licenses").catch(() => []),
      list("publishers").catch(() => []),
    ]);
    return normalizeOpen5eDocuments(docs, licenses, publishers);
  },
);
