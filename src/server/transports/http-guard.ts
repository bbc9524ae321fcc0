/**
 * Pure checks for the HTTP transport: loopback detection, Host / Origin allowlists (DNS-rebinding
 * protection) and bearer-token comparison in constant time.
 */
import { createHash, timingSafeEqual } from "node:crypto";

/**
 * The hostname of a Host header or bind address by the WHATWG URL host parser (what browsers use):
 * lower-case, IPv6 in brackets, IPv4 in any legal spelling made canonical ("127.1", "0x7f000001"
 * → "127.0.0.1"). Undefined when it is not a host with an optional port (e.g. "[::1]evil.com").
 */
export function parseHost(host: string): string | undefined {
  let h = host.trim();
  if (h === "" || /[\s/\\?#@]/.test(h)) return undefined;
  // A bare IPv6 address (a bind address such as ::1): bracket it.
  if (!h.startsWith("[") && h.indexOf(":") !== h.lastIndexOf(":")) h = `[${h}]`;
  const u = URL.parse(`http://${h}`);
  return u && u.pathname === "/" && u.search === "" && u.hash === "" ? u.hostname : undefined;
}

/** "127.0.0.1:8000" → "127.0.0.1"; "[::1]:80" → "[::1]"; "127.1" → "127.0.0.1"; lower-case. */
export function hostnameOf(hostHeader: string): string {
  const parsed = parseHost(hostHeader);
  if (parsed !== undefined) return parsed;
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    return end >= 0 ? h.slice(0, end + 1) : h;
  }
  const colon = h.lastIndexOf(":");
  return colon >= 0 && h.indexOf(":") === colon ? h.slice(0, colon) : h;
}

/** Loopback: localhost, 127.0.0.0/8 in any IPv4 spelling, ::1 and ::ffff:127.x.y.z. Malformed → false. */
export function isLoopback(host: string): boolean {
  const h = parseHost(host);
  if (h === undefined) return false;
  if (h === "localhost" || h === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(h)) return true;
  // ::ffff:127.0.0.1 is written [::ffff:7f00:1] by the parser
  return /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(h);
}

/** Host header, by hostname (any port): a loopback name or an allowed host ("ok"), another host, or no host at all. */
export function checkHost(hostHeader: string | null, allowedHosts: string[]): "ok" | "forbidden" | "malformed" {
  if (!hostHeader) return "forbidden";
  const h = parseHost(hostHeader);
  if (h === undefined) return "malformed";
  if (isLoopback(h)) return "ok";
  return allowedHosts.some((a) => hostnameOf(a) === h) ? "ok" : "forbidden";
}

/** Origin allowed? Absent (non-browser clients) is fine; loopback origins pass; others listed exactly. */
export function originAllowed(origin: string | null, allowedOrigins: string[]): boolean {
  if (origin === null || origin === "") return true;
  const url = URL.parse(origin);
  if (!url) return false;
  if ((url.protocol === "http:" || url.protocol === "https:") && isLoopback(url.hostname)) return true;
  const norm = `${url.protocol}//${url.host}`.toLowerCase();
  return allowedOrigins.some((a) => a.replace(/\/+$/, "").toLowerCase() === norm);
}

function digest(s: string): Buffer {
  return createHash("sha256").update(s, "utf8").digest();
}

/** `Authorization: Bearer <token>` matches? Constant time in the token's content. */
export function bearerMatches(authorization: string | null, token: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(authorization?.trim() ?? "");
  const given = m?.[1]?.trim() ?? "";
  return timingSafeEqual(digest(given), digest(token)) && given.length > 0;
}
