/**
 * `lorekeeper health`: asks a running `serve --http` for GET /health and exits 0 when it answers
 * ok. For container HEALTHCHECKs (the image has no shell and no curl).
 */
import { fetchErrorText } from "../../sources/http.ts";
import { safeLine } from "../../text/sanitize.ts";
import { parse } from "../args.ts";
import { type Command, EXIT_FAILED, EXIT_OK, UsageError } from "../command.ts";

const HELP = `Usage: lorekeeper health [--url URL] [--timeout MS]

Checks a running HTTP server: GET URL (default http://127.0.0.1:8000/health) must answer 200 within
MS milliseconds (default 3000). Prints one line; exits 0 when healthy, 1 otherwise. No token is
needed: /health is open.`;

export const healthCommand: Command = {
  name: "health",
  summary: "check a running `serve --http` (for container health checks)",
  help: HELP,
  async run(argv) {
    const { values } = parse(argv, { url: { type: "string" }, timeout: { type: "string" } });
    const url = values.url ?? "http://127.0.0.1:8000/health";
    const timeout = Number(values.timeout ?? 3000);
    if (!Number.isFinite(timeout) || timeout <= 0)
      throw new UsageError(`--timeout must be a positive number of milliseconds (got "${values.timeout}")`);
    if (!/^https?:\/\//.test(url)) throw new UsageError(`--url must be an http(s) URL (got "${url}")`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(timeout) });
      const body = await res.text();
      if (res.status !== 200) {
        process.stdout.write(`unhealthy: ${url} answered ${res.status}\n`);
        return EXIT_FAILED;
      }
      process.stdout.write(`${safeLine(`healthy: ${body.slice(0, 200)}`)}\n`);
      return EXIT_OK;
    } catch (err) {
      process.stdout.write(`unhealthy: ${url}: ${fetchErrorText(err, timeout)}\n`);
      return EXIT_FAILED;
    }
  },
};
