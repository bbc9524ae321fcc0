import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
  AnswerCollector,
  answerChars,
  answerCollector,
  COLLECT_AFTER_CHARS,
  collectYoung,
} from "../../src/server/collect.ts";
import { openStore } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { makeEntity } from "../support/entities.ts";
import { connectInMemory, makeDeps } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";

/** A collector whose scheduled work waits in `queue` until the test runs it. */
function manual(threshold: number, collect: () => void) {
  const queue: Array<() => void> = [];
  const c = new AnswerCollector(threshold, collect, (fn) => queue.push(fn));
  return {
    c,
    queue,
    runAll: () => {
      for (const fn of queue.splice(0)) fn();
    },
  };
}

describe("AnswerCollector", () => {
  test("schedules one collection each time the answers reach the threshold", () => {
    let collected = 0;
    const { c, queue, runAll } = manual(100, () => collected++);
    c.noteAnswer(60);
    expect(queue).toHaveLength(0);
    c.noteAnswer(40);
    expect(queue).toHaveLength(1);
    expect(collected).toBe(0); // later, not inside the call
    runAll();
    expect(collected).toBe(1);
    c.noteAnswer(99);
    expect(queue).toHaveLength(0);
    c.noteAnswer(1);
    runAll();
    expect(collected).toBe(2);
  });

  test("never has two collections waiting; answers made before one runs count as collected", () => {
    let collected = 0;
    const { c, queue, runAll } = manual(10, () => collected++);
    for (let i = 0; i < 5; i++) c.noteAnswer(50);
    expect(queue).toHaveLength(1);
    runAll();
    c.noteAnswer(9);
    expect(queue).toHaveLength(0);
    expect(collected).toBe(1);
  });

  test("a failing collection is logged, not thrown, and the next one still comes", () => {
    let calls = 0;
    const { c, runAll, queue } = manual(1, () => {
      calls++;
      throw new Error("boom");
    });
    c.noteAnswer(1);
    expect(() => runAll()).not.toThrow();
    c.noteAnswer(1);
    expect(queue).toHaveLength(1);
    runAll();
    expect(calls).toBe(2);
  });

  test("the collection is JavaScriptCore's young-generation one, available in this runtime", () => {
    expect(collectYoung()).toBeGreaterThan(0);
  });

  test("by default it runs on setImmediate, after the current work", async () => {
    let ran = 0;
    const c = new AnswerCollector(COLLECT_AFTER_CHARS, () => ran++);
    c.noteAnswer(COLLECT_AFTER_CHARS);
    await Promise.resolve();
    expect(ran).toBe(0);
    await new Promise((r) => setImmediate(r));
    expect(ran).toBe(1);
  });
});

describe("answerChars", () => {
  test("counts the text of text blocks and resource contents only", () => {
    expect(
      answerChars([
        { type: "text", text: "abc" },
        { type: "image", data: "xxxxxxxx", mimeType: "image/png" },
        { type: "text", text: "de" },
      ]),
    ).toBe(5);
    expect(
      answerChars([
        { uri: "lorekeeper://spell/x", text: "hello" },
        { uri: "lorekeeper://x", blob: "AAAA" },
      ]),
    ).toBe(5);
    expect(answerChars(undefined)).toBe(0);
  });
});

describe("the server notes what it answers", () => {
  test("every tools/call and resources/read answer counts its text toward the next collection", async () => {
    const t = makeTempDir("lk-collect-");
    const store = openStore({ path: join(t.dir, "lk.db") });
    replaceOrigin(store.db, "open5e_v2:spells", [makeEntity("spell", "Fireball", { level: 3, school: "evocation" })]);
    const { client, close } = await connectInMemory(makeDeps(store));
    try {
      const before = answerCollector.charsSinceCollection;
      const call = (await client.callTool({ name: "search_spell", arguments: { name: "Fireball" } })) as {
        content: Array<{ type: string; text: string }>;
      };
      const text = call.content[0]!.text;
      const uri = (JSON.parse(text) as { results: Array<{ uri: string }> }).results[0]!.uri;
      const read = await client.readResource({ uri });
      const contents = read.contents as Array<{ text?: string }>;
      // Far below the threshold: no collection ran in between, so the count only grew.
      expect(answerCollector.charsSinceCollection - before).toBe(text.length + (contents[0]!.text ?? "").length);
      expect(text.length).toBeGreaterThan(100);
    } finally {
      await close();
      store.close();
      t.cleanup();
    }
  });
});
