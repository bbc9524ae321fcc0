/**
 * Preloaded before every test file (bunfig.toml): tests never reach the network and never touch
 * the user's real data or cache folders.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

process.env.LOREKEEPER_OFFLINE = "1";
if (!process.env.LOREKEEPER_TEST_KEEP_ENV) {
  const root = mkdtempSync(join(tmpdir(), "lk-test-env-"));
  process.env.XDG_DATA_HOME = join(root, "data");
  process.env.XDG_CACHE_HOME = join(root, "cache");
  delete process.env.LOREKEEPER_DB_PATH;
  delete process.env.LOREKEEPER_MODEL_DIR;
  delete process.env.LOREKEEPER_DATA_DIR;
  // Upstreams default to an unroutable local port unless a test sets its fake.
  process.env.LOREKEEPER_OPEN5E_BASE_URL = "http://127.0.0.1:9";
  process.env.LOREKEEPER_DND5EAPI_BASE_URL = "http://127.0.0.1:9";
  process.on("exit", () => {
    try {
      require("node:fs").rmSync(root, { recursive: true, force: true });
    } catch {
      /* best effort */
    }
  });
}
