/**
 * An input that never runs dry (stdin redirected from /dev/zero: no newline, ever) must not take
 * the server's event loop: it skips the oversized line as always, and it still stops on SIGTERM.
 * Bun reads such an input without running timers or signal handlers unless the reader pauses
 * (stdio-transport.ts, YIELD_BYTES).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, REPO_ROOT } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";
import { waitFor } from "../support/wait.ts";

let tmp: ReturnType<typeof makeTempDir>;
beforeAll(() => {
  tmp = makeTempDir("lk-endless-");
});
afterAll(() => tmp.cleanup());

describe("stdin that never ends", () => {
  test.skipIf(!existsSync("/dev/zero"))(
    "the server keeps its event loop and stops on SIGTERM",
    async () => {
      const env = { ...process.env, ...(await isolatedEnv(tmp.dir)), LOREKEEPER_LOG_LEVEL: "info" };
      const zero = openSync("/dev/zero", "r");
      const child = spawn(
        process.execPath,
        [join(REPO_ROOT, "src", "cli", "main.ts"), "serve", "--db-path", join(tmp.dir, "lk.db")],
        { env, cwd: REPO_ROOT, stdio: [zero, "ignore", "pipe"] },
      );
      closeSync(zero);
      let stderr = "";
      child.stderr!.on("data", (d: Buffer) => {
        stderr += d.toString();
      });
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      try {
        expect(await waitFor(() => stderr.includes("ready on stdio"), 20_000)).toBe(true);
        // Let it read for a while: megabytes of zeros, one endless line.
        await Bun.sleep(500);
        child.kill("SIGTERM");
        const code = await Promise.race([exited, Bun.sleep(8000).then(() => "still running")]);
        expect(code).not.toBe("still running");
      } finally {
        child.kill("SIGKILL");
      }
    },
    40_000,
  );
});
