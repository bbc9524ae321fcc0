/**
 * Pure checks for the HTTP transport: loopback detection, Host / Origin allowlists (DNS-rebinding
 * protection) and bearer-token comparison in constant time.
 */
import { createHash, timingSafeEqual } from "node:crypto";

const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "::1", "[::1]"];

/** "127.0.0.1:8000" → "127.0.0.1"; "[::1]:80" → "[::1]"; lower-case. */
export function hostnameOf(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    return end >= 0 ? h.slice(0, end + 1) : h;
  }
  const colon = h.lastIndexOf(":");
  return colon >= 0 && h.indexOf(":") === colon ? h.slice(0, colon) : h;
}

export function isLoopback(host: string): boolean {
  const h = hostnameOf(host);
  return LOOPBACK_HOSTS.includes(h) || /^127\.\d+\.\d+\.\d+$/.test(h);
}

export interface GuardConfig {
  /** Extra hostnames accepted in Host (besides loopback names and the bind address). */
  allowedHosts: string[];
  /** Extra origins accepted in Origin, exact (scheme://host[:port]); loopback origins always pass. */
  allowedOrigins: string[];
  /** Bearer token; undefined = no auth (loopback only). */
  token?: string;
}

/** Host header allowed? Compared by hostname, any port. A missing Host is refused. */
export function hostAllowed(hostHeader: string | null, cfg: GuardConfig): boolean {
  if (!hostHeader) return false;
  const h = hostnameOf(hostHeader);
  if (isLoopback(h)) return true;
  return cfg.allowedHosts.some((a) => hostnameOf(a) === h);
}

/** Origin allowed? Absent (non-browser clients) is fine; loopback origins pass; others must be listed. */
export function originAllowed(origin: string | null, cfg: GuardConfig): boolean {
  if (origin === null || origin === "") return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if ((url.protocol === "http:" || url.protocol === "https:") && isLoopback(url.hostname)) return true;
  const norm = `${url.protocol}//${url.host}`.toLowerCase();
  return cfg.allowedOrigins.some((a) => a.replace(/\/+$/, "").toLowerCase() === norm);
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
