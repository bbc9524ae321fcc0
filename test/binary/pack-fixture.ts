/**
 * A tiny content pack for the binary test: a real store with a few hand-made entities, embedded
 * with the tests' tiny model (so the binary's semantic search has vectors made by the same model).
 */
import { openStore } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { embedPending } from "../../src/ingest/embed.ts";
import { createEmbedderProvider } from "../../src/search/model/embedder.ts";
import { withCanonicalData } from "../support/canonical-data.ts";
import { makeEntity } from "../support/entities.ts";

/** Shares no word with any entity text: only semantic ranking can put Fireball first. */
export const PACK_QUERY = "inferno ember scorch smoke";

/** With whole canonical data, as a sync writes it: a pack check refuses partial data. */
export function packEntities() {
  return [
    makeEntity(
      "spell",
      "Fireball",
      { level: 3, school: "evocation", damage_types: ["fire"] },
      { text: "A bright streak of flame blossoms into a burning blaze of heat." },
    ),
    makeEntity(
      "spell",
      "Ice Storm",
      { level: 4, school: "evocation", damage_types: ["cold"] },
      { text: "Hail and sleet fall, freezing everything in frost." },
    ),
    makeEntity(
      "spell",
      "Cure Wounds",
      { level: 1, school: "evocation" },
      { text: "Heal wounds and restore health to a creature you touch." },
    ),
    makeEntity(
      "spell",
      "Shield",
      { level: 1, school: "abjuration" },
      { text: "An invisible ward protects against arrows and missiles." },
    ),
    makeEntity(
      "spell",
      "Lightning Bolt",
      { level: 3, school: "evocation", damage_types: ["lightning"] },
      { text: "A stroke of lightning and thunder in a line." },
    ),
    makeEntity(
      "creature",
      "Wraith",
      { cr: 5, creature_type: "undead", size: "medium" },
      { text: "An undead that drains life from the living." },
    ),
  ].map(withCanonicalData);
}

export async function makePackStore(
  path: string,
  modelDir: string,
): Promise<{ path: string; entities: number; modelId: string }> {
  const store = openStore({ path });
  try {
    const entities = packEntities();
    for (const kind of ["spell", "creature"] as const)
      replaceOrigin(
        store.db,
        `open5e_v2:${kind}`,
        entities.filter((e) => e.kind === kind),
      );
    const provider = createEmbedderProvider({ modelDir, embeddedDir: null, allowDownload: false });
    const r = await embedPending(store, provider);
    if (!r.modelId || r.embedded !== entities.length)
      throw new Error(`embedding the test pack failed: ${JSON.stringify(r)}`);
    return { path, entities: entities.length, modelId: r.modelId };
  } finally {
    store.close();
  }
}
