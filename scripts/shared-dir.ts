/**
 * The shared folder beside the checkout (`../shared`: API snapshots, models, OrcBrew samples),
 * or LOREKEEPER_SHARED_DIR. Defaults of scripts and bench resolve from here, never from one
 * machine's absolute paths.
 */
import { join, resolve } from "node:path";

export const SHARED_DIR = resolve(process.env.LOREKEEPER_SHARED_DIR ?? join(import.meta.dir, "..", "..", "shared"));
export const SHARED_DATA = join(SHARED_DIR, "data");
export const SHARED_MODEL = join(SHARED_DIR, "models", "lorekeeper-static-384");
