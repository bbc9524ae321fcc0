/** tools/answer/response.ts and tools/answer/budget.ts: the result shape and the response budget. */
import { describe, expect, test } from "bun:test";
import { fitAnswer } from "../../src/tools/answer/budget.ts";
import { entityUri } from "../../src/entities/uri.ts";
import { flattenEntity, type SearchAnswer } from "../../src/tools/answer/response.ts";
import { makeEntity } from "../support/entities.ts";

describe("results", () => {
  test("flattenEntity puts identity and attribution first; entity data cannot override them", () => {
    const e = makeEntity("spell", "Fireball", { level: 3 }, { key: "srd_fireball" });
    e.data = { ...e.data, key: "evil", document_key: "evil", desc: "Boom." };
    const flat = flattenEntity(e, 0.87654);
    expect(Object.keys(flat).slice(0, 8)).toEqual([
      "key",
      "name",
      "kind",
      "document_key",
      "document_name",
      "document_source",
      "source_url",
      "uri",
    ]);
    expect(flat.key).toBe("srd_fireball");
    expect(flat.document_key).toBe("srd-2014");
    expect(flat.desc).toBe("Boom.");
    expect(flat.uri).toBe("lorekeeper://spell/srd_fireball");
    expect(flat.similarity_score).toBe(0.8765);
    expect("similarity_score" in flattenEntity(e)).toBe(false);
    expect(entityUri("spell", "a b/c", "open5e_v2")).toBe("lorekeeper://spell/a%20b%2Fc");
    expect(entityUri("creature", "ogre", "open5e_v1")).toBe("lorekeeper://creature/open5e_v1:ogre");
  });

  function answerWith(n: number, descLen: number): SearchAnswer {
    const results = Array.from({ length: n }, (_, i) => {
      const e = makeEntity("creature", `Monster ${i}`, {}, { key: `m${i}` });
      e.data = { desc: `${"word ".repeat(descLen / 5)}`, actions: [{ name: "Bite", desc: "x".repeat(descLen) }] };
      return flattenEntity(e);
    });
    return {
      results,
      count: n,
      total: n,
      offset: 0,
      has_more: false,
      detail: "full",
      search_mode: "structured",
      metadata: { generated_at: "t", data_synced_at: null, sources: ["open5e_v2"] },
    };
  }

  test("fitAnswer leaves small answers alone", () => {
    const a = answerWith(2, 100);
    expect(fitAnswer(a, { budgetChars: 60_000 }).answer).toBe(a);
  });

  test("fitAnswer shortens long fields (nested too) and says how to get the full entry", () => {
    const a = answerWith(5, 20_000);
    const fitted = fitAnswer(a, { budgetChars: 30_000 }).answer;
    const text = JSON.stringify(fitted);
    expect(text.length).toBeLessThanOrEqual(30_000);
    expect(fitted.truncated).toBe(true);
    expect(fitted.count).toBe(5);
    expect(fitted.results.length).toBe(5);
    expect(String(fitted.results[0]!.desc)).toContain("[truncated]");
    expect(JSON.stringify(fitted.results[0]!.actions)).toContain("[truncated]");
    expect(fitted.results[0]!.uri).toBe("lorekeeper://creature/m0");
    expect(fitted.message).toContain("lorekeeper://creature/m0");
    expect(fitted.message).not.toContain("call search_creature");
    // With a tool's own hint (run-search.ts: a valid call of that tool that leads to the same entry).
    const hinted = fitAnswer(a, {
      budgetChars: 30_000,
      fullEntryHint: (r) => `call search_creature ${JSON.stringify({ name: r.name })}`,
    }).answer;
    expect(hinted.message).toContain('call search_creature {"name":"Monster 0"}');
  });

  test("fitAnswer drops trailing results when even short fields do not fit", () => {
    const a = answerWith(100, 2000);
    const fitted = fitAnswer(a, { budgetChars: 8_000 }).answer;
    expect(JSON.stringify(fitted).length).toBeLessThanOrEqual(8_000);
    expect(fitted.results.length).toBeGreaterThan(0);
    expect(fitted.results.length).toBeLessThan(100);
    expect(fitted.count).toBe(fitted.results.length);
    expect(fitted.message).toContain(`of 100 results`);
  });

  // Like `search_creature {"type":"dragon","limit":30,"detail":"full"}` on a full store: two big
  // stat blocks in the middle of the page must not be skipped by paging.
  function pageWithBigOnes(): SearchAnswer {
    const results = Array.from({ length: 30 }, (_, i) => {
      const e = makeEntity("creature", `Dragon ${String(i).padStart(2, "0")}`, {}, { key: `d${i}` });
      const n = i === 7 || i === 8 ? 45 : 6;
      e.data = { actions: Array.from({ length: n }, (_, j) => ({ name: `Action ${j}`, desc: "y ".repeat(200) })) };
      return flattenEntity(e);
    });
    return {
      results,
      count: 30,
      total: 30,
      offset: 0,
      has_more: false,
      detail: "full",
      search_mode: "structured",
      metadata: { generated_at: "t", data_synced_at: null, sources: ["open5e_v2"] },
    };
  }

  test("results left out by the budget start the next page: paging skips none, the message says how many", () => {
    const whole = pageWithBigOnes();
    const budget = 12_000;
    const seen: string[] = [];
    let offset = 0;
    for (let pages = 0; pages < 30 && offset < 30; pages++) {
      const page: SearchAnswer = { ...whole, results: whole.results.slice(offset), count: 30 - offset, offset };
      const { answer: a, text } = fitAnswer(page, { budgetChars: budget });
      expect(text.length).toBeLessThanOrEqual(budget);
      expect(a.results.length).toBeGreaterThan(0);
      const names = a.results.map((r) => String(r.name));
      // A prefix of the page: the kept ones are the next ones in order.
      expect(names).toEqual(whole.results.slice(offset, offset + names.length).map((r) => String(r.name)));
      seen.push(...names);
      const rest = 30 - offset - names.length;
      if (rest > 0) {
        expect(a.next_offset).toBe(offset + names.length);
        expect(a.has_more).toBe(true);
        expect(a.message).toContain(`Only ${names.length} of ${30 - offset} results fit`);
        expect(a.message).toContain(`the other ${rest} were left out: call again with offset=${offset + names.length}`);
        offset = a.next_offset!;
      } else {
        expect(a.next_offset).toBeUndefined();
        offset = 30;
      }
    }
    expect(seen).toEqual(whole.results.map((r) => String(r.name)));
  });

  test("a result too big for any answer is left out where it stands, named with its uri; the rest still come", () => {
    const whole = pageWithBigOnes();
    const { answer: a, text } = fitAnswer(whole, { budgetChars: 4_000 });
    expect(text.length).toBeLessThanOrEqual(4_000);
    const names = a.results.map((r) => String(r.name));
    expect(names[0]).toBe("Dragon 00");
    expect(a.next_offset).toBe(names.length);
    const fromBig = fitAnswer({ ...whole, results: whole.results.slice(7), offset: 7 }, { budgetChars: 4_000 }).answer;
    expect(fromBig.message).toContain(
      "Too large for any answer, so left out: Dragon 07 (lorekeeper://creature/d7); Dragon 08",
    );
    expect(fromBig.results[0]!.name).toBe("Dragon 09");
    expect(fromBig.next_offset).toBe(7 + 2 + fromBig.results.length);
  });
});
