/** What each source declares about itself agrees with the places below the sources that must list it. */
import { afterEach, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config.ts";
import { HOMEBREW_SOURCES } from "../../src/entities/types.ts";
import { SOURCES, sourceRank, upstreamsAt, upstreamsOf } from "../../src/sources/index.ts";

describe("the source registry", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  });

  test("a source has an upstream API exactly when it syncs, and content types only then", () => {
    for (const s of SOURCES) {
      expect({ id: s.id, upstream: s.upstream !== undefined }).toEqual({ id: s.id, upstream: s.open !== undefined });
      if (!s.open) expect({ id: s.id, types: s.contentTypes.length }).toEqual({ id: s.id, types: 0 });
    }
  });

  test("the homebrew hook and entities' HOMEBREW_SOURCES name the same sources", () => {
    // entities/ sits below sources/ and cannot read the hook; this keeps its list true.
    expect(
      SOURCES.filter((s) => s.homebrew)
        .map((s) => s.id)
        .sort(),
    ).toEqual([...HOMEBREW_SOURCES].sort());
  });

  test("short names are unique; homebrew ranks after every API source", () => {
    expect(new Set(SOURCES.map((s) => s.short)).size).toBe(SOURCES.length);
    const lastApi = Math.max(...SOURCES.filter((s) => !s.homebrew).map((s) => sourceRank(s.id)));
    for (const id of HOMEBREW_SOURCES) expect(sourceRank(id)).toBeGreaterThan(lastApi);
    expect(sourceRank("a_newer_stores_source")).toBe(SOURCES.length);
  });

  test("each upstream's variable sets its base URL, and upstreamsAt points every one at one place", () => {
    for (const { source, api } of upstreamsOf(loadConfig())) {
      process.env[api.envVar] = `http://127.0.0.1:9/${source.id}`;
      expect(loadConfig()[api.baseUrlSetting]).toBe(`http://127.0.0.1:9/${source.id}`);
      delete process.env[api.envVar];
    }
    const at = { ...loadConfig(), ...upstreamsAt("http://127.0.0.1:9/fake") };
    for (const u of upstreamsOf(at)) expect(u.baseUrl).toBe("http://127.0.0.1:9/fake");
    expect(upstreamsOf(at).length).toBe(SOURCES.filter((s) => s.open).length);
  });

  test("a probe address lies on the API's base URL", () => {
    for (const { api } of upstreamsOf(loadConfig())) {
      expect(api.probeUrl("http://127.0.0.1:9/b")).toStartWith("http://127.0.0.1:9/b/");
    }
  });
});
