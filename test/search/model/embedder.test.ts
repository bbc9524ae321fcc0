import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createEmbedderProvider } from "../../../src/search/model/embedder.ts";
import { TimeoutError, withTimeout } from "../../../src/search/model/timeout.ts";
import {
  BGE_QUERY_INSTRUCTION,
  inspectModelDir,
  modelProfile,
  planModelSources,
} from "../../../src/search/model/model-source.ts";
import { loadConfig } from "../../../src/config.ts";
import { installModel } from "../../../src/search/model/model-install.ts";
import { DEFAULT_MODEL } from "../../../src/search/model/model-manifest.ts";
import { createTinyModel } from "../../support/tiny-model.ts";
import { makeTempDir } from "../../support/tmp.ts";

let tmp: ReturnType<typeof makeTempDir>;
let modelA: string;
let modelB: string;

function sha12(path: string): string {
  const h = new Bun.CryptoHasher("sha256");
  h.update(readFileSync(path));
  return h.digest("hex").slice(0, 12);
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Everything written to stderr while `fn` runs. */
async function captureStderr(fn: () => Promise<unknown>): Promise<string> {
  const chunks: string[] = [];
  const orig = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    chunks.push(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk));
    return true;
  }) as typeof process.stderr.write;
  try {
    await fn();
  } finally {
    process.stderr.write = orig;
  }
  return chunks.join("");
}

/** A provider that can only use `modelDir` (no env, no embedded model, no download). */
function isolated(modelDir: string | null, extra: Parameters<typeof createEmbedderProvider>[0] = {}) {
  return createEmbedderProvider({
    modelDir,
    embeddedDir: null,
    allowDownload: false,
    cacheDir: join(tmp.dir, "cache"),
    ...extra,
  });
}

beforeAll(async () => {
  tmp = makeTempDir();
  modelA = await createTinyModel(join(tmp.dir, "tiny-a"));
  modelB = await createTinyModel(join(tmp.dir, "tiny-b"), { seed: 2 });
});
afterAll(() => tmp.cleanup());
afterEach(() => {
  delete process.env.LOREKEEPER_MODEL_DIR;
});

describe("tiny model", () => {
  test("is generated, loads in fastembed and returns unit vectors where related words are close", async () => {
    const e = (await isolated(modelA).get())!;
    expect(e).not.toBeNull();
    const [fire, flame, heal, ice] = await e.embedPassages([
      "fire burns",
      "a blaze of flames",
      "heal wounds",
      "ice and frost",
    ]);
    for (const v of [fire!, flame!, heal!, ice!]) expect(Math.abs(Math.sqrt(dot(v, v)) - 1)).toBeLessThan(1e-5);
    expect(dot(fire!, flame!)).toBeGreaterThan(dot(fire!, heal!) + 0.3);
    expect(dot(fire!, flame!)).toBeGreaterThan(dot(fire!, ice!) + 0.3);
  });
});

describe("embedder provider", () => {
  test("is lazy: unloaded until get(), concurrent get() calls share one load", async () => {
    const p = isolated(modelA);
    expect(p.state()).toBe("unloaded");
    expect(p.info()).toBeUndefined();
    const a = p.get();
    const b = p.get();
    expect(p.state()).toBe("loading");
    const [ea, eb] = await Promise.all([a, b]);
    expect(ea).not.toBeNull();
    expect(ea).toBe(eb!);
    expect(p.state()).toBe("ready");
    expect(await p.get()).toBe(ea!);
  });

  test("identity is <name>@<sha256 of the onnx file> and dim comes from the output", async () => {
    const p = isolated(modelA);
    const e = (await p.get())!;
    expect(e.id).toBe(`custom:tiny-a@${sha12(join(modelA, "model.onnx"))}`);
    expect(e.dim).toBe(32);
    expect(p.info()).toMatchObject({
      id: e.id,
      dim: 32,
      source: "LOREKEEPER_MODEL_DIR",
      onnxFile: "model.onnx",
      family: "plain",
    });
    const other = (await isolated(modelB).get())!;
    expect(other.id).not.toBe(e.id);
    const big = (await isolated(await createTinyModel(join(tmp.dir, "tiny-48"), { dim: 48 })).get())!;
    expect(big.dim).toBe(48);
  });

  test(
    "LOREKEEPER_MODEL_DIR wins over the embedded model; without " +
      "it the embedded model is used (both from the Config)",
    async () => {
      process.env.LOREKEEPER_MODEL_DIR = modelA;
      const fromEnv = createEmbedderProvider({
        config: loadConfig({ embeddedModelDir: modelB }),
        allowDownload: false,
        cacheDir: join(tmp.dir, "cache"),
      });
      expect((await fromEnv.get())!.id).toStartWith("custom:tiny-a@");
      delete process.env.LOREKEEPER_MODEL_DIR;
      const fromEmbedded = createEmbedderProvider({
        config: loadConfig({ embeddedModelDir: modelB }),
        allowDownload: false,
        cacheDir: join(tmp.dir, "cache"),
      });
      expect((await fromEmbedded.get())!.id).toStartWith("custom:tiny-b@");
      expect(fromEmbedded.info()?.source).toBe("embedded");
    },
  );

  test("a missing model dir makes it unavailable with one clear warning; get() is null", async () => {
    const missing = join(tmp.dir, "no-such-model");
    const p = isolated(missing);
    let first: unknown = "unset";
    const err = await captureStderr(async () => {
      first = await p.get();
      await p.get();
    });
    expect(first).toBeNull();
    expect(p.state()).toBe("unavailable");
    expect(p.reason()).toContain("does not exist");
    const warnings = err.split("\n").filter((l) => l.includes("WARN"));
    expect(warnings.length).toBe(1);
    expect(warnings[0]).toContain(missing);
    expect(warnings[0]).toContain("LOREKEEPER_MODEL_DIR");
  });

  test("a damaged ONNX file or an incomplete folder makes it unavailable, saying why", async () => {
    const bad = join(tmp.dir, "bad-onnx");
    cpSync(modelA, bad, { recursive: true });
    writeFileSync(join(bad, "model.onnx"), "this is not an onnx file");
    const p = isolated(bad);
    await captureStderr(async () => expect(await p.get()).toBeNull());
    expect(p.state()).toBe("unavailable");
    expect(p.reason()).toMatch(/could not load it .*Protobuf/);

    const partial = join(tmp.dir, "partial");
    cpSync(modelA, partial, { recursive: true });
    renameSync(join(partial, "tokenizer.json"), join(partial, "tokenizer.json.bak"));
    const q = isolated(partial);
    await captureStderr(async () => expect(await q.get()).toBeNull());
    expect(q.reason()).toContain("missing tokenizer.json");
  });

  test(
    "a named model that is not installed or cached, with " +
      "downloads off, is unavailable; unknown names are explained",
    async () => {
      const p = isolated(null, { modelName: "fast-bge-small-en-v1.5" });
      await captureStderr(async () => expect(await p.get()).toBeNull());
      expect(p.reason()).toContain("downloading is off");
      expect(p.reason()).toContain("lorekeeper model install bge-small-en-v1.5");
      const fastembedOnly = isolated(null, { modelName: "fast-bge-base-en" });
      await captureStderr(async () => expect(await fastembedOnly.get()).toBeNull());
      expect(fastembedOnly.reason()).toContain("downloading is off");
      const q = isolated(null, { modelName: "no-such-model" });
      await captureStderr(async () => expect(await q.get()).toBeNull());
      expect(q.reason()).toContain("neither a known model (all-MiniLM-L6-v2");
    },
  );

  test("a broken embedded model falls through to the default model (and both reasons are kept)", async () => {
    const p = createEmbedderProvider({
      modelDir: null,
      embeddedDir: join(tmp.dir, "gone"),
      allowDownload: false,
      cacheDir: join(tmp.dir, "cache"),
    });
    await captureStderr(async () => expect(await p.get()).toBeNull());
    expect(p.reason()).toContain("embedded model");
    expect(p.reason()).toContain(`model ${DEFAULT_MODEL}`);
  });

  test("without another model the default model is loaded from the model cache, installed but not in use", async () => {
    const modelsDir = join(tmp.dir, "models-default");
    await installModel([modelA], { modelsDir, name: DEFAULT_MODEL, pooling: "cls", use: false });
    const p = createEmbedderProvider({
      modelDir: null,
      embeddedDir: null,
      installedDir: null,
      allowDownload: false,
      cacheDir: modelsDir,
    });
    const e = (await p.get())!;
    expect(e).not.toBeNull();
    expect(p.info()).toMatchObject({ name: DEFAULT_MODEL, source: "cache", dir: join(modelsDir, DEFAULT_MODEL) });
    // An alias (fastembed's name of the same model) finds the same installed folder.
    const alias = createEmbedderProvider({
      modelDir: null,
      embeddedDir: null,
      installedDir: null,
      allowDownload: false,
      cacheDir: modelsDir,
      modelName: "fast-all-MiniLM-L6-v2",
    });
    expect((await alias.get())!.id).toBe(e.id);
  });

  test("over-long queries are truncated to the token limit with a warning", async () => {
    const e = (await isolated(modelA, { maxTokens: 16 }).get())!;
    const words = [
      "fire",
      "flame",
      "blaze",
      "burn",
      "heat",
      "ember",
      "smoke",
      "scorch",
      "fire",
      "flame",
      "blaze",
      "burn",
      "heat",
      "ember",
    ];
    const long = `${words.join(" ")} ${"heal wounds cure ".repeat(20)}`;
    let v: Float32Array = new Float32Array(0);
    const err = await captureStderr(async () => {
      v = await e.embedQuery(long);
    });
    expect(err).toContain("longer than the embedding model's limit of 16 tokens");
    // the kept part is measured with the tokenizer: the 14 words (and the space after them)
    expect(err).toContain(`only its first ~${words.join(" ").length + 1} of ${long.trim().length} characters`);
    // 16 tokens = [CLS] + 14 words + [SEP]: the healing words never count.
    const head = await e.embedQuery(words.join(" "));
    expect(dot(v, head)).toBeGreaterThan(0.9999);
    const quiet = await captureStderr(async () => void (await e.embedQuery("fire")));
    expect(quiet).not.toContain("longer than");
  });
});

describe("model conventions", () => {
  test("BGE gets the query instruction, e5 its prefixes, static models nothing", () => {
    expect(modelProfile("fast-bge-small-en-v1.5")).toEqual({
      family: "bge",
      queryPrefix: BGE_QUERY_INSTRUCTION,
      passagePrefix: "",
    });
    expect(modelProfile("custom:model", { _name_or_path: "BAAI/bge-small-en-v1.5" }).family).toBe("bge");
    expect(modelProfile("fast-multilingual-e5-large")).toMatchObject({
      family: "e5",
      queryPrefix: "query: ",
      passagePrefix: "passage: ",
    });
    expect(modelProfile("custom:lorekeeper-static-384", { _name_or_path: "lorekeeper-static-384" }).family).toBe(
      "plain",
    );
    expect(modelProfile("fast-all-MiniLM-L6-v2").queryPrefix).toBe("");
  });

  test("queries of a BGE model carry the instruction, passages do not; plain models embed both alike", async () => {
    const text = "fire flame";
    const plain = (await isolated(modelA).get())!;
    expect(dot(await plain.embedQuery(text), (await plain.embedPassages([text]))[0]!)).toBeGreaterThan(0.99999);
    const bgeDir = join(tmp.dir, "bge-tiny");
    cpSync(modelA, bgeDir, { recursive: true });
    const p = isolated(bgeDir);
    const bge = (await p.get())!;
    expect(p.info()?.family).toBe("bge");
    const q = await bge.embedQuery(text);
    const [passage, instructed] = await bge.embedPassages([text, BGE_QUERY_INSTRUCTION + text]);
    expect(dot(q, passage!)).toBeLessThan(0.9999);
    expect(dot(q, instructed!)).toBeGreaterThan(0.99999);
  });

  test("source order: explicit dir alone; else embedded, then named", () => {
    const base = { modelName: DEFAULT_MODEL, cacheDir: "/c", allowDownload: true };
    expect(planModelSources({ ...base, modelDir: "/m", embeddedDir: "/e" }).map((s) => s.kind)).toEqual(["dir"]);
    expect(planModelSources({ ...base, embeddedDir: "/e" }).map((s) => (s.kind === "dir" ? s.origin : s.name))).toEqual(
      ["embedded", DEFAULT_MODEL],
    );
  });

  test(
    "model folders: model.onnx, model_optimized.onnx, a " + "single *.onnx, or onnx/; several others are ambiguous",
    async () => {
      const mk = async (name: string, files: string[]) => {
        const d = await createTinyModel(join(tmp.dir, name), { onnxName: files[0] });
        for (const f of files.slice(1)) {
          mkdirSync(join(d, f, ".."), { recursive: true });
          writeFileSync(join(d, f), "x");
        }
        return d;
      };
      const check = (d: string) => {
        const c = inspectModelDir(d);
        return c.ok ? c.onnxFile : c.problem;
      };
      expect(check(await mk("m1", ["model_optimized.onnx"]))).toBe("model_optimized.onnx");
      expect(check(await mk("m2", ["weights.onnx"]))).toBe("weights.onnx");
      expect(check(await mk("m3", ["a.onnx", "b.onnx"]))).toContain("several ONNX files");
      const sub = await mk("m4", ["onnx/model.onnx"]);
      expect(check(sub)).toBe("onnx/model.onnx");
      expect((await isolated(sub).get())?.dim).toBe(32);
    },
  );
});

describe("timeouts", () => {
  test("withTimeout passes results through and rejects with TimeoutError when slow", async () => {
    expect(await withTimeout(Promise.resolve(7), 50)).toBe(7);
    expect(await withTimeout(Promise.resolve(8), 0)).toBe(8);
    await expect(withTimeout(new Promise(() => {}), 20, "thing")).rejects.toBeInstanceOf(TimeoutError);
  });
});
