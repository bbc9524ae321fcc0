/**
 * A tiny MCP Apps host for the card tests: headless Chromium (the Debian package, driven by
 * playwright-core) loads a host page holding the card in a sandboxed iframe (`allow-scripts`
 * only, an opaque origin, as hosts do), answers the card's `ui/initialize`, then posts the tool
 * result as `ui/notifications/tool-result`. It records console errors, page errors and every
 * network request. `cardBrowser()` is null, with the reason, where Chromium or playwright-core is
 * missing (CI has no Chromium).
 */
import { existsSync } from "node:fs";
import type { Browser, Frame, Page } from "playwright-core";

export const CHROMIUM = process.env.LK_CHROMIUM ?? "/usr/bin/chromium";
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];

export async function cardBrowser(): Promise<{ browser: Browser } | { reason: string }> {
  if (!existsSync(CHROMIUM))
    return { reason: `no Chromium at ${CHROMIUM} (apt-get install chromium, or set LK_CHROMIUM)` };
  let pw: typeof import("playwright-core");
  try {
    pw = await import("playwright-core");
  } catch {
    return { reason: "playwright-core is not installed" };
  }
  return { browser: await pw.chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true }) };
}

export interface Rendered {
  page: Page;
  frame: Frame;
  consoleErrors: string[];
  requests: string[];
  /** The height the card reported through ui/notifications/size-changed. */
  height: number;
}

const HOST =
  `<!doctype html><html><body style="margin:0;background:#888">
<iframe id="card" sandbox="allow-scripts" ` +
  `style="border:0;width:100%;height:200px;display:block"></iframe>
<script>
window.hostLog = ` +
  `[];
function start(html, result, theme) {
  var frame = document.getElementById("card");
  ` +
  `window.addEventListener("message", function (ev) {
    if (ev.source !== frame.contentWindow) return;
    var m ` +
  `= ev.data; window.hostLog.push(m.method || "response");
    var reply = function (msg) { ` +
  `frame.contentWindow.postMessage(msg, "*"); };
    if (m.method === "ui/initialize") reply({ jsonrpc: "2.0", id: ` +
  `m.id, result: { protocolVersion: "2026-01-26", hostInfo: { name: "lk-test-host", version: "0" }, ` +
  `hostCapabilities: {}, hostContext: { theme: theme } } });
    else if (m.method === "ui/notifications/initialized") ` +
  `reply({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: result });
 ` +
  `   else if (m.method === "ui/notifications/size-changed") { frame.style.height = m.params.height + ` +
  `"px"; window.cardHeight = m.params.height; }
  });
  frame.srcdoc = html;
}
</script></body></html>`;

/** Renders `html` (a card template) in the host with `result` (a CallToolResult). */
export async function renderCard(
  browser: Browser,
  html: string,
  result: unknown,
  opts: { theme?: "light" | "dark"; width?: number } = {},
): Promise<Rendered> {
  const page = await browser.newPage({
    viewport: { width: opts.width ?? 640, height: 400 },
    colorScheme: opts.theme ?? "light",
  });
  const consoleErrors: string[] = [];
  const requests: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") consoleErrors.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => consoleErrors.push(`pageerror: ${e.message}`));
  page.on("request", (r) => requests.push(r.url()));
  await page.setContent(HOST);
  // Strings: the browser's DOM types are not in this project's lib.
  await page.evaluate(
    `start(${JSON.stringify(html)}, ${JSON.stringify(result)}, ${JSON.stringify(opts.theme ?? "light")})`,
  );
  await page.waitForFunction(`typeof window.cardHeight === "number"`, undefined, { timeout: 10_000 });
  const height = (await page.evaluate("window.cardHeight")) as number;
  await page.setViewportSize({ width: opts.width ?? 640, height: Math.min(Math.max(height, 100), 4000) });
  const frame = page.frames().find((f) => f !== page.mainFrame());
  if (!frame) throw new Error("the card frame did not load");
  return { page, frame, consoleErrors, requests, height };
}
