/** Pure pieces of the tools and the HTTP guard: vocabularies, budget, argument errors, Host/Origin/token checks. */
import { describe, expect, test } from "bun:test";
import { bearerMatches, hostAllowed, hostnameOf, isLoopback, originAllowed } from "../../src/server/http-guard.ts";
import { resolveHttpOptions } from "../../src/server/http.ts";
import { TOOLS } from "../../src/tools/index.ts";
import { fitToBudget } from "../../src/tools/budget.ts";
import { entityUri, flattenEntity, type SearchAnswer } from "../../src/tools/response.ts";
import { canonical, contentTypeKinds, RARITIES, RULE_TYPES } from "../../src/tools/vocab.ts";
import { makeEntity } from "../support/entities.ts";

describe("vocabularies", () => {
  test("canonical ignores case, separators and plurals, and keeps unknown values for the enum check", () => {
    expect(canonical("Very_Rare", RARITIES)).toBe("very rare");
    expect(canonical("VERY-RARE", RARITIES)).toBe("very rare");
    expect(canonical("damage_type", RULE_TYPES)).toBe("damage-type");
    expect(canonical("Conditions", RULE_TYPES)).toBe("condition");
    expect(canonical("abilities", RULE_TYPES, { ability: "ability-score" })).toBe("ability-score");
    expect(canonical(" Bogus ", RULE_TYPES)).toBe("bogus");
    expect(canonical(3, RULE_TYPES)).toBe(3);
  });

  test("content types map Open5e names, snake/kebab forms and plurals to kinds", () => {
    expect(contentTypeKinds("MagicItem")).toEqual(["magic_item"]);
    expect(contentTypeKinds("magic_item")).toEqual(["magic_item"]);
    expect(contentTypeKinds("magic-items")).toEqual(["magic_item"]);
    expect(contentTypeKinds("spells")).toEqual(["spell"]);
    expect(contentTypeKinds("Race")).toEqual(["species"]);
    expect(contentTypeKinds("classes")).toEqual(["class"]);
    expect(contentTypeKinds("Equipment")).toEqual(["weapon", "armor", "item", "magic_item"]);
    expect(contentTypeKinds("Dragon")).toBeUndefined();
    expect(contentTypeKinds("")).toBeUndefined();
  });
});

describe("results", () => {
  test("flattenEntity puts identity and attribution first; entity data cannot override them", () => {
    const e = makeEntity("spell", "Fireball", { level: 3 }, { key: "srd_fireball" });
    e.data = { ...e.data, key: "evil", document_key: "evil", desc: "Boom." };
    const flat = flattenEntity(e, 0.87654);
    expect(Object.keys(flat).slice(0, 8)).toEqual(["key", "name", "kind", "document_key", "document_name", "document_source", "source_url", "uri"]);
    expect(flat.key).toBe("srd_fireball");
    expect(flat.document_key).toBe("srd-2014");
    expect(flat.desc).toBe("Boom.");
    expect(flat.uri).toBe("lorekeeper://spell/srd_fireball");
    expect(flat.similarity_score).toBe(0.8765);
    expect("similarity_score" in flattenEntity(e)).toBe(false);
    expect(entityUri("spell", "a b/c")).toBe("lorekeeper://spell/a%20b%2Fc");
  });

  function answerWith(n: number, descLen: number): SearchAnswer {
    const results = Array.from({ length: n }, (_, i) => {
      const e = makeEntity("creature", `Monster ${i}`, {}, { key: `m${i}` });
      e.data = { desc: `${"word ".repeat(descLen / 5)}`, actions: [{ name: "Bite", desc: "x".repeat(descLen) }] };
      return flattenEntity(e);
    });
    return { results, count: n, search_mode: "structured", metadata: { generated_at: "t", data_synced_at: null, sources: ["open5e_v2"] } };
  }

  test("fitToBudget leaves small answers alone", () => {
    const a = answerWith(2, 100);
    expect(fitToBudget(a, { budgetChars: 60_000, tool: "search_creature" })).toBe(a);
  });

  test("fitToBudget shortens long fields (nested too) and says how to get the full entry", () => {
    const a = answerWith(5, 20_000);
    const fitted = fitToBudget(a, { budgetChars: 30_000, tool: "search_creature" });
    const text = JSON.stringify(fitted);
    expect(text.length).toBeLessThanOrEqual(30_000);
    expect(fitted.truncated).toBe(true);
    expect(fitted.count).toBe(5);
    expect(fitted.results.length).toBe(5);
    expect(String(fitted.results[0]!.desc)).toContain("[truncated]");
    expect(JSON.stringify(fitted.results[0]!.actions)).toContain("[truncated]");
    expect(fitted.results[0]!.uri).toBe("lorekeeper://creature/m0");
    expect(fitted.message).toContain("lorekeeper://creature/m0");
    expect(fitted.message).toContain('name="Monster 0"');
  });

  test("fitToBudget drops trailing results when even short fields do not fit", () => {
    const a = answerWith(100, 2000);
    const fitted = fitToBudget(a, { budgetChars: 8_000, tool: "search_creature" });
    expect(JSON.stringify(fitted).length).toBeLessThanOrEqual(8_000);
    expect(fitted.results.length).toBeGreaterThan(0);
    expect(fitted.results.length).toBeLessThan(100);
    expect(fitted.count).toBe(fitted.results.length);
    expect(fitted.message).toContain(`of 100 results`);
  });
});

describe("argument errors", () => {
  const tool = (name: string) => TOOLS.find((t) => t.name === name)!;
  const ctx = {} as never; // validation fails before the context is used

  test("name the parameter, the problem and the valid values", async () => {
    const r = await tool("search_creature").call({ size: "enormous", cr_min: -1, armor_class_min: "high", extra: true }, ctx);
    expect(r.isError).toBe(true);
    const text = (r.content[0] as { text: string }).text;
    expect(text).toStartWith("Invalid arguments for search_creature:");
    expect(text).toContain('size: "enormous" is not a valid value. Valid values: tiny, small, medium, large, huge, gargantuan.');
    expect(text).toContain("cr_min: must be a number from 0 to 30");
    expect(text).toContain('armor_class_min: expected a number, got the string "high".');
    expect(text).toContain('unknown parameter "extra". Valid parameters:');
    expect(text).not.toContain("MCP error");
  });

  test("required and empty values", async () => {
    const missing = await tool("search_all").call({}, ctx);
    expect((missing.content[0] as { text: string }).text).toContain("query is required.");
    const empty = await tool("search_all").call({ query: "   " }, ctx);
    expect((empty.content[0] as { text: string }).text).toContain("query: must not be empty.");
  });
});

describe("HTTP guard", () => {
  const cfg = { allowedHosts: ["lorekeeper.lan"], allowedOrigins: ["https://app.example.com"] };

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
    expect(hostAllowed("localhost:1234", cfg)).toBe(true);
    expect(hostAllowed("lorekeeper.lan:8000", cfg)).toBe(true);
    expect(hostAllowed("evil.example:8000", cfg)).toBe(false);
    expect(hostAllowed(null, cfg)).toBe(false);
    expect(originAllowed(null, cfg)).toBe(true);
    expect(originAllowed("http://localhost:5173", cfg)).toBe(true);
    expect(originAllowed("https://app.example.com", cfg)).toBe(true);
    expect(originAllowed("https://app.example.com:444", cfg)).toBe(false);
    expect(originAllowed("https://evil.example", cfg)).toBe(false);
    expect(originAllowed("null", cfg)).toBe(false);
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
    expect(resolveHttpOptions({ host: "0.0.0.0", token: "t" }).host).toBe("0.0.0.0");
    expect(resolveHttpOptions({}).host).toBe("127.0.0.1");
  });
});
