/** server/transports/http-guard.ts and the HTTP options: Host / Origin / bearer-token checks. */
import { describe, expect, test } from "bun:test";
import {
  bearerMatches,
  checkHost,
  hostnameOf,
  isLoopback,
  originAllowed,
} from "../../src/server/transports/http-guard.ts";
import { resolveHttpOptions } from "../../src/server/transports/http.ts";

describe("HTTP guard", () => {
  const hosts = ["lorekeeper.lan"];
  const origins = ["https://app.example.com"];

  test("host names and loopback", () => {
    expect(hostnameOf("127.0.0.1:8000")).toBe("127.0.0.1");
    expect(hostnameOf("[::1]:8000")).toBe("[::1]");
    expect(hostnameOf("LOCALHOST")).toBe("localhost");
    expect(isLoopback("127.0.0.5")).toBe(true);
    expect(isLoopback("::1")).toBe(true);
    expect(isLoopback("0.0.0.0")).toBe(false);
    expect(isLoopback("192.168.1.2")).toBe(false);
  });

  test("Host allowlist (any port) and Origin allowlist (exact, loopback always)", () => {
    expect(checkHost("localhost:1234", hosts)).toBe("ok");
    expect(checkHost("lorekeeper.lan:8000", hosts)).toBe("ok");
    expect(checkHost("evil.example:8000", hosts)).toBe("forbidden");
    expect(checkHost(null, hosts)).toBe("forbidden");
    expect(originAllowed(null, origins)).toBe(true);
    expect(originAllowed("http://localhost:5173", origins)).toBe(true);
    expect(originAllowed("https://app.example.com", origins)).toBe(true);
    expect(originAllowed("https://app.example.com:444", origins)).toBe(false);
    expect(originAllowed("https://evil.example", origins)).toBe(false);
    expect(originAllowed("null", origins)).toBe(false);
  });

  test("bearer tokens", () => {
    expect(bearerMatches("Bearer s3cret", "s3cret")).toBe(true);
    expect(bearerMatches("bearer s3cret", "s3cret")).toBe(true);
    expect(bearerMatches("Bearer s3cre", "s3cret")).toBe(false);
    expect(bearerMatches("Basic s3cret", "s3cret")).toBe(false);
    expect(bearerMatches(null, "s3cret")).toBe(false);
  });

  test("a non-loopback bind needs a token", () => {
    expect(() => resolveHttpOptions({ host: "0.0.0.0" })).toThrow(/without a token/);
    expect(resolveHttpOptions({ host: "0.0.0.0", token: "9f2c4e6a8b1d3f5a7c9e0b2d" }).host).toBe("0.0.0.0");
    expect(resolveHttpOptions({}).host).toBe("127.0.0.1");
  });
});
