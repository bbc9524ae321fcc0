/** Run by content-pack.test.ts in two processes at once: install the pack described on argv. */
import { readFileSync } from "node:fs";
import { installContentPack } from "../../src/native/content-pack.ts";
import type { EmbeddedBundle } from "../../src/native/manifest.ts";

const [bundleJson, dbPath] = process.argv.slice(2);
const bundle = JSON.parse(readFileSync(bundleJson!, "utf8")) as EmbeddedBundle;
const res = await installContentPack(bundle, dbPath!);
process.stdout.write(JSON.stringify(res));
