/**
 * Preloaded before every test file (bunfig.toml): tests never reach the network and never touch
 * the user's real data or cache folders.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setLogSink } from "../../src/log.ts";
import { upstreamEnvAt } from "../../src/sources/index.ts";
import { capturedLogSink } from "./logs.ts";

process.env.LOREKEEPER_OFFLINE = "1";
if (!process.env.LOREKEEPER_TEST_KEEP_ENV) {
  const root = mkdtempSync(join(tmpdir(), "lk-test-env-"));
  process.env.XDG_DATA_HOME = join(root, "data");
  process.env.XDG_CACHE_HOME = join(root, "cache");
  delete process.env.LOREKEEPER_DB_PATH;
  delete process.env.LOREKEEPER_MODEL_DIR;
  delete process.env.LOREKEEPER_DATA_DIR;
  // Every source's upstream defaults to an unroutable local port unless a test sets its fake.
  Object.assign(process.env, upstreamEnvAt("http://127.0.0.1:9"));
  process.on("exit", () => {
    try {
      require("node:fs").rmSync(root, { recursive: true, force: true });
    } catch {
      /* best effort */
    }
  });
}

// Logs of the code under test go to a captured buffer, not the console: passing tests that
// exercise failures (refused requests, a dead upstream) would otherwise print alarming lines.
// `LOREKEEPER_TEST_LOGS=1 bun test …` prints them as they happen; tests read them with testLogs().
// A test that intercepts process.stderr.write (to assert on what a command prints) gets them there.
if (!process.env.LOREKEEPER_TEST_LOGS) {
  const consoleStderr = process.stderr.write;
  setLogSink((line) =>
    process.stderr.write !== consoleStderr ? void process.stderr.write(line) : capturedLogSink(line),
  );
}
