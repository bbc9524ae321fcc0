/** Run by extract.test.ts in several processes at once: extract the bundle described on argv. */
import { readFileSync } from "node:fs";
import { ensureExtracted } from "../../src/native/extract.ts";
import type { EmbeddedBundle } from "../../src/native/manifest.ts";

const [bundleJson, ...roots] = process.argv.slice(2);
const bundle = JSON.parse(readFileSync(bundleJson!, "utf8")) as EmbeddedBundle;
const res = await ensureExtracted(bundle, roots);
process.stdout.write(JSON.stringify({ dir: res.dir, written: res.written.length, warm: res.warm }));
