/**
 * Is an installed model faithful to the published one: its catalog entry's published similarities,
 * unit-length vectors, padding masked (a text alone = in a batch), the query instruction applied
 * only when it has one. Used by `bun scripts/check-model.ts` and `bun run eval`.
 */
import type { Embedder } from "../types.ts";
import type { CatalogModel, ModelManifest } from "./model-manifest.ts";

type ReferenceCheck = { name: string; pass: boolean; detail: string };

function cos(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

export async function checkModel(
  e: Embedder,
  manifest: Pick<ModelManifest, "query_prefix"> | undefined,
  ref: CatalogModel["reference"],
): Promise<ReferenceCheck[]> {
  const out: ReferenceCheck[] = [];
  if (ref) {
    const v = await e.embedPassages(ref.sentences);
    const diffs = ref.pairs.map(([i, j, want]) => ({ i, j, want, got: cos(v[i]!, v[j]!) }));
    const worst = Math.max(...diffs.map((d) => Math.abs(d.got - d.want)));
    out.push({
      name: "published similarities",
      pass: worst <= ref.tolerance,
      detail:
        `${diffs.map((d) => `${d.got.toFixed(4)} vs ${d.want}`).join(", ")}; max |diff| ${worst.toFixed(4)} ` +
        `(tolerance ${ref.tolerance}); ${ref.citation}`,
    });
  }
  const text = "A red dragon breathes fire.";
  const [alone] = await e.embedPassages([text]);
  const batch = await e.embedPassages([
    "The lich is an undead spellcaster that keeps its soul in a phylactery and returns unless it is destroyed.",
    text,
    "Short.",
  ]);
  const norm = Math.sqrt(cos(alone!, alone!));
  out.push({ name: "unit length", pass: Math.abs(norm - 1) < 1e-4, detail: `norm ${norm.toFixed(6)}` });
  const same = cos(alone!, batch[1]!);
  out.push({ name: "padding is masked", pass: same > 0.9999, detail: `cosine alone vs in a batch ${same.toFixed(6)}` });
  const q = await e.embedQuery(text);
  const qp = cos(q, alone!);
  const prefix = manifest?.query_prefix ?? "";
  out.push(
    prefix
      ? {
          name: "query instruction",
          pass: qp < 0.9999,
          detail: `queries get "${prefix}" (cosine query vs passage ${qp.toFixed(4)})`,
        }
      : {
          name: "no query instruction",
          pass: qp > 0.9999,
          detail: `query and passage vectors agree (cosine ${qp.toFixed(6)})`,
        },
  );
  return out;
}
