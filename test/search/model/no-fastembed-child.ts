/**
 * Run by onnx-session.test.ts in a fresh process (its own module registry): load a model folder,
 * embed a query and a passage, and report whether any fastembed module was imported.
 *
 *   bun no-fastembed-child.ts MODEL_DIR GRAPH_CACHE
 */
import { createEmbedderProvider } from "../../../src/search/model/embedder.ts";

const fastembedLoaded = () => Object.keys(require.cache).some((k) => /[\\/]fastembed[\\/]/.test(k));
const [modelDir, graphCache] = process.argv.slice(2);
const provider = createEmbedderProvider({
  modelDir,
  embeddedDir: null,
  allowDownload: false,
  graphCache,
  graphSaveDelayMs: 60_000,
});
const e = await provider.get();
if (!e) throw new Error(`no model: ${provider.reason()}`);
const query = await e.embedQuery("fire breathing dragon");
const afterQuery = fastembedLoaded();
const [passage] = await e.embedPassages(["fire breathing dragon"]);
const afterPassages = fastembedLoaded();
const same = query.length === passage!.length && query.every((x, i) => Math.abs(x - passage![i]!) < 1e-5);
process.stdout.write(`${JSON.stringify({ afterQuery, afterPassages, same })}\n`);
process.exit(0);
