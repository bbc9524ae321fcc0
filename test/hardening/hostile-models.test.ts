/**
 * Hostile model files: a tokenizer_config.json whose model_max_length is
 * negative or tiny, archive bombs, links out of a model folder and link loops, an oversized
 * tokenizer.json, a wheel License field full of terminal escapes, tar archives with unsafe entries,
 * and install errors that name internals. Each is refused (or neutralised) with a clear message,
 * and nothing reaches the model cache. Archives and models are tiny and generated here; bombs use
 * lowered limits (InstallOptions.archiveLimits) or lying declared sizes, never real gigabytes.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import {
  closeSync,
  cpSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { zipSync } from "fflate";
import { getLogLevel, setLogLevel } from "../../src/log.ts";
import { createEmbedderProvider } from "../../src/search/model/embedder.ts";
import type { ArchiveLimits } from "../../src/search/model/model-archive.ts";
import { installByName } from "../../src/search/model/model-fetch.ts";
import { installModel, ModelInstallError } from "../../src/search/model/model-install.ts";
import { MANIFEST_FILE, readManifest } from "../../src/search/model/model-manifest.ts";
import { inspectModelDir } from "../../src/search/model/model-source.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { makeTempDir } from "../support/tmp.ts";
import { cliEnv, expectCleanFailure, runCli } from "./store-health.ts";

const SIDE = ["tokenizer.json", "config.json", "tokenizer_config.json", "special_tokens_map.json"];
const SMALL: ArchiveLimits = {
  maxEntryBytes: 1024 * 1024,
  maxTotalBytes: 2 * 1024 * 1024,
  maxRatio: 20,
  maxEntries: 100,
};

let tmp: ReturnType<typeof makeTempDir>;
let good: string;
let modelsDir: string;
let n = 0;

/** A copy of the tiny model with tokenizer_config.json's model_max_length set to `v`. */
function withMaxLength(v: number): string {
  const dir = join(tmp.dir, `maxlen-${++n}`);
  cpSync(good, dir, { recursive: true });
  const tc = JSON.parse(readFileSync(join(dir, "tokenizer_config.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(join(dir, "tokenizer_config.json"), JSON.stringify({ ...tc, model_max_length: v }));
  return dir;
}

function modelFiles(prefix = ""): Record<string, Uint8Array> {
  return Object.fromEntries(
    ["model.onnx", ...SIDE].map((f) => [`${prefix}${f}`, new Uint8Array(readFileSync(join(good, f)))]),
  );
}

async function refused(p: Promise<unknown>): Promise<ModelInstallError> {
  const err = await p.then(
    () => new Error("installed, expected a refusal"),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ModelInstallError);
  return err as ModelInstallError;
}

const installed = () => (existsSync(modelsDir) ? readdirSync(modelsDir).filter((f) => !f.startsWith(".")) : []);

/** One tar header + body (ustar), for entries Bun.Archive does not write (links, "..", absolute paths). */
function tarEntry(name: string, type: string, body: Uint8Array = new Uint8Array(0), link = ""): Uint8Array {
  const h = new Uint8Array(512);
  const put = (s: string, off: number, len: number) => h.set(new TextEncoder().encode(s).subarray(0, len), off);
  put(name, 0, 100);
  put("0000644\0", 100, 8);
  put("0000000\0", 108, 8);
  put("0000000\0", 116, 8);
  put(`${body.length.toString(8).padStart(11, "0")}\0`, 124, 12);
  put("00000000000\0", 136, 12);
  put("        ", 148, 8);
  put(type, 156, 1);
  put(link, 157, 100);
  put("ustar\0", 257, 6);
  put("00", 263, 2);
  let sum = 0;
  for (const b of h) sum += b;
  put(`${sum.toString(8).padStart(6, "0")}\0 `, 148, 8);
  const padded = new Uint8Array(Math.ceil(body.length / 512) * 512);
  padded.set(body);
  const out = new Uint8Array(512 + padded.length);
  out.set(h);
  out.set(padded, 512);
  return out;
}

function tarOf(entries: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const all = [...entries, new Uint8Array(1024)];
  const out = new Uint8Array(all.reduce((a, e) => a + e.length, 0));
  let o = 0;
  for (const e of all) {
    out.set(e, o);
    o += e.length;
  }
  return out;
}

function modelTarEntries(): Uint8Array[] {
  return Object.entries(modelFiles("m/")).map(([name, data]) => tarEntry(name, "0", data));
}

const level = getLogLevel();

beforeAll(async () => {
  setLogLevel("error");
  tmp = makeTempDir("lk-hostile-models-");
  good = await createTinyModel(join(tmp.dir, "good"));
});

afterAll(() => {
  setLogLevel(level);
  tmp.cleanup();
});

beforeEach(() => {
  modelsDir = join(tmp.dir, `models-${++n}`);
});

describe("tokenizer_config.json model_max_length", () => {
  test("-5 and -1 are refused at install and load, without allocating (was: 17 GB allocation, OOM kill)", async () => {
    for (const v of [-5, -1]) {
      const dir = withMaxLength(v);
      const err = await refused(installModel([dir], { modelsDir, name: "neg" }));
      expect(err.message).toContain(`model_max_length ${v}`);
      expect(installed()).toEqual([]);
      const check = inspectModelDir(dir);
      expect(check.ok).toBe(false);
      const provider = createEmbedderProvider({ modelDir: dir, embeddedDir: null, allowDownload: false });
      expect(await provider.get()).toBeNull();
      expect(provider.reason()).toContain(`model_max_length ${v}`);
    }
  });

  test("0 and 1 are refused too (was: installed, then every embedding failed)", async () => {
    for (const v of [0, 1, 2.5]) {
      const err = await refused(installModel([withMaxLength(v)], { modelsDir, name: "tiny-len" }));
      expect(err.message).toContain("model_max_length");
      expect(err.hint).toContain("512");
    }
    expect(installed()).toEqual([]);
    // "No limit" as Hugging Face writes it is fine: our own token limit caps it.
    const m = await installModel([withMaxLength(1e30)], { modelsDir, name: "huge-len", use: false });
    expect(m.dimension).toBe(32);
  });

  test("doctor names an installed model in use whose tokenizer_config.json " +
    "was damaged afterwards (FAIL, not 'all passed')", async () => {
    const home = join(tmp.dir, `home-${++n}`);
    const models = join(home, "xdg-cache", "lorekeeper", "models");
    await installModel([good], { modelsDir: models, name: "tampered" });
    const tcPath = join(models, "tampered", "tokenizer_config.json");
    writeFileSync(tcPath, JSON.stringify({ ...JSON.parse(readFileSync(tcPath, "utf8")), model_max_length: -5 }));
    const r = await runCli(
      ["doctor", "--offline", "--json", "--db-path", join(home, "lk.db")],
      cliEnv(home, { LOREKEEPER_MODEL_DIR: "" }),
    );
    const report = JSON.parse(r.stdout) as {
      ok: boolean;
      checks: Array<{ name: string; status: string; summary: string; fix?: string }>;
    };
    const model = report.checks.find((c) => c.name === "model")!;
    expect(model.status).toBe("fail");
    expect(model.summary).toContain("model_max_length -5");
    expect(model.fix).toContain("lorekeeper model");
    expect(r.code).toBe(1);
  }, 30_000);
});

describe("archive bombs", () => {
  const bomb = () => new Uint8Array(4 * 1024 * 1024); // 4 MiB of zeros: a few KB compressed

  test("a zip/wheel entry that inflates far beyond its compressed size is refused before it is written", async () => {
    const whl = join(tmp.dir, "bomb.whl");
    writeFileSync(whl, zipSync({ ...modelFiles("pkg/"), "pkg/padding.bin": bomb() }, { level: 9 }));
    const err = await refused(installModel([whl], { modelsDir, name: "bomb", archiveLimits: SMALL }));
    expect(err.message).toMatch(/padding\.bin.*(inflates|more than)/);
    expect(installed()).toEqual([]);
    expect(readdirSync(modelsDir).filter((f) => f.startsWith(".work-"))).toEqual([]);
  });

  test("a zip whose header lies about the size is caught while streaming (bytes counted, not declared)", async () => {
    const zip = zipSync({ ...modelFiles(), "padding.bin": bomb() }, { level: 9 });
    // Patch the declared uncompressed size of padding.bin (central directory and local header) to 100 bytes.
    const name = new TextEncoder().encode("padding.bin");
    const dv = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    for (let o = 0; o + 46 < zip.length; o++) {
      const sig = dv.getUint32(o, true);
      if (sig === 0x02014b50 && zip.subarray(o + 46, o + 46 + name.length).every((b, i) => b === name[i]))
        dv.setUint32(o + 24, 100, true);
      if (sig === 0x04034b50 && zip.subarray(o + 30, o + 30 + name.length).every((b, i) => b === name[i]))
        dv.setUint32(o + 22, 100, true);
    }
    const path = join(tmp.dir, "liar.zip");
    writeFileSync(path, zip);
    const err = await refused(installModel([path], { modelsDir, name: "liar", archiveLimits: SMALL }));
    expect(err.message).toContain("padding.bin");
    expect(installed()).toEqual([]);
  });

  test("with the default limits, an entry declaring 3 GiB is refused from its header alone", async () => {
    const zip = zipSync({ ...modelFiles(), "huge.bin": new Uint8Array(64) });
    const name = new TextEncoder().encode("huge.bin");
    const dv = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    for (let o = 0; o + 46 < zip.length; o++) {
      if (
        dv.getUint32(o, true) === 0x02014b50 &&
        zip.subarray(o + 46, o + 46 + name.length).every((b, i) => b === name[i])
      )
        dv.setUint32(o + 24, 3 * 1024 ** 3, true);
    }
    const path = join(tmp.dir, "declared.zip");
    writeFileSync(path, zip);
    const err = await refused(installModel([path], { modelsDir, name: "declared" }));
    expect(err.message).toMatch(/huge\.bin.*(more than|inflates)/);
  });

  test("a .tar.gz bomb is refused while streaming, after a bounded amount on disk (was: 1 GiB written)", async () => {
    const path = join(tmp.dir, "bomb.tar.gz");
    writeFileSync(
      path,
      Bun.gzipSync(tarOf([...modelTarEntries(), tarEntry("m/padding.bin", "0", bomb())]), { level: 9 }),
    );
    const err = await refused(installModel([path], { modelsDir, name: "tgz-bomb", archiveLimits: SMALL }));
    expect(err.message).toMatch(/inflates more than 20×|more than 1 MiB/);
    expect(installed()).toEqual([]);
  });

  test("a normal model archive still installs under the same lowered limits", async () => {
    const path = join(tmp.dir, "fine.tar.gz");
    writeFileSync(path, Bun.gzipSync(tarOf(modelTarEntries())));
    const m = await installModel([path], { modelsDir, name: "fine", archiveLimits: { ...SMALL, maxRatio: 20 } });
    expect(m.dimension).toBe(32);
  });
});

describe("one rule for every archive type: regular files under relative paths, nothing else", () => {
  const cases: Array<[string, () => Uint8Array, RegExp]> = [
    ["a ../ path", () => tarEntry("../escape.txt", "0", new Uint8Array(3)), /outside its folder/],
    ["an absolute path", () => tarEntry("/tmp/lk-absolute.txt", "0", new Uint8Array(3)), /absolute path/],
    [
      "a symbolic link",
      () => tarEntry("m/tokenizer_config.json", "2", undefined, "/etc/passwd"),
      /symbolic link.*\/etc\/passwd/,
    ],
    ["a hard link", () => tarEntry("m/hard", "1", undefined, "/etc/passwd"), /hard link/],
    ["a device", () => tarEntry("m/dev", "3"), /character device/],
  ];
  for (const [what, entry, message] of cases) {
    test(`a tar with ${what} is refused, naming the entry (was: silently stripped)`, async () => {
      for (const gz of [false, true]) {
        const raw = tarOf([...modelTarEntries(), entry()]);
        const path = join(tmp.dir, `unsafe-${++n}.${gz ? "tgz" : "tar"}`);
        writeFileSync(path, gz ? Bun.gzipSync(raw) : raw);
        const err = await refused(installModel([path], { modelsDir, name: "unsafe" }));
        expect(err.message).toMatch(message);
        expect(err.message).toContain("refusing");
      }
      expect(installed()).toEqual([]);
      expect(existsSync(join(tmp.dir, "escape.txt"))).toBe(false);
    });
  }

  test("a zip with a symbolic link entry is refused like a tar with one", async () => {
    const zip = zipSync({
      ...modelFiles(),
      link: [new TextEncoder().encode("/etc/passwd"), { os: 3, attrs: (0o120777 << 16) >>> 0 }],
    });
    const path = join(tmp.dir, "link.zip");
    writeFileSync(path, zip);
    const err = await refused(installModel([path], { modelsDir, name: "zlink" }));
    expect(err.message).toMatch(/symbolic link entry "link"/);
  });
});

describe("model folders", () => {
  test(
    "a file that is a symbolic link to a file outside the " +
      "folder is refused (was: its content copied into the cache)",
    async () => {
      const dir = join(tmp.dir, `linked-${++n}`);
      cpSync(good, dir, { recursive: true });
      const outside = join(tmp.dir, `secret-${n}.json`);
      cpSync(join(good, "tokenizer.json"), outside);
      rmSync(join(dir, "tokenizer.json"));
      symlinkSync(outside, join(dir, "tokenizer.json"));
      const err = await refused(installModel([dir], { modelsDir, name: "linked" }));
      expect(err.message).toContain("symbolic link");
      expect(err.message).toContain(outside);
      expect(err.hint).toContain("cp -L");
      expect(installed()).toEqual([]);
    },
  );

  test("links to folders (ln -s . l1 … l6) are not followed: " +
    "the install is immediate (was: exponential, > 60 s)", async () => {
    const dir = join(tmp.dir, `loops-${++n}`);
    cpSync(good, dir, { recursive: true });
    for (let i = 1; i <= 6; i++) symlinkSync(".", join(dir, `l${i}`));
    const m = await installModel([dir], { modelsDir, name: "loops", use: false });
    expect(m.files.map((f) => f.name).sort()).toEqual([
      "config.json",
      "model.onnx",
      "special_tokens_map.json",
      "tokenizer.json",
      "tokenizer_config.json",
    ]);
  }, 20_000);

  test("an oversized tokenizer.json is refused from its size, at install and at load (was: 1.46 GB RSS)", async () => {
    const dir = join(tmp.dir, `big-tok-${++n}`);
    cpSync(good, dir, { recursive: true });
    const fd = openSync(join(dir, "tokenizer.json"), "r+");
    ftruncateSync(fd, 40 * 1024 * 1024); // sparse: nothing is written, the size says 40 MB
    closeSync(fd);
    const err = await refused(installModel([dir], { modelsDir, name: "big-tok" }));
    expect(err.message).toMatch(/tokenizer\.json is 40 MB, more than the 32 MB/);
    const provider = createEmbedderProvider({ modelDir: dir, embeddedDir: null, allowDownload: false });
    expect(await provider.get()).toBeNull();
    expect(provider.reason()).toContain("more than the 32 MB");
  });
});

describe("what sources say is neutralised before it is printed or stored", () => {
  test(
    "a wheel's License field with terminal escapes and 200 KB " +
      "is one short safe line in the manifest, the log and doctor",
    async () => {
      const evil = `\u001b]0;owned\u0007\u001b[2J\u001b[31mMIT\u202e${"A".repeat(200_000)}`;
      const whl = join(tmp.dir, "license.whl");
      const meta = new TextEncoder().encode(
        `Metadata-Version: 2.4\nName: tiny\nVersion: 1.0.0\nLicense: ${evil}\n\nx\n`,
      );
      writeFileSync(whl, zipSync({ ...modelFiles("pkg/"), "tiny-1.0.0.dist-info/METADATA": meta }));
      const lines: string[] = [];
      const m = await installModel([whl], { modelsDir, name: "lic", log: (l) => lines.push(l) });
      for (const text of [m.license, lines.join("\n"), readFileSync(join(modelsDir, "lic", MANIFEST_FILE), "utf8")]) {
        expect(text).not.toMatch(/[\u001b\u0007\u202e]/);
        expect(text.length).toBeLessThan(2_000);
      }
      expect(m.license).toContain("MIT");
      // A manifest written before the fix (200 KB, escapes) is read back shortened and safe.
      const path = join(modelsDir, "lic", MANIFEST_FILE);
      writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, "utf8")), license: evil }));
      const back = readManifest(join(modelsDir, "lic"))!;
      expect(back.license.length).toBeLessThanOrEqual(200);
      expect(back.license).not.toMatch(/[\u001b\u0007\u202e]/);
    },
  );

  test("an install that fails to load names neither LOREKEEPER_MODEL_DIR nor the internal work folder", async () => {
    const dir = join(tmp.dir, `broken-${++n}`);
    cpSync(good, dir, { recursive: true });
    writeFileSync(join(dir, "model.onnx"), new Uint8Array(512).fill(7));
    const err = await refused(installModel([dir], { modelsDir, name: "broken" }));
    expect(err.message).toContain("does not load");
    expect(err.message).not.toContain("LOREKEEPER_MODEL_DIR");
    expect(err.message).not.toContain(".work-");
    expect(err.message).toContain(dir);
  });
});

describe("the model command", () => {
  test("model install of a hostile folder exits 1 with the reason and no stack trace", async () => {
    const home = join(tmp.dir, `cli-${++n}`);
    mkdirSync(home, { recursive: true });
    const r = await runCli(["model", "install", withMaxLength(-5), "--name", "neg"], cliEnv(home));
    expectCleanFailure(r);
    expect(r.stderr).toContain("model_max_length -5");
  }, 20_000);
});

describe("fastembed's download by name", () => {
  test(
    "is checked against the published ONNX sha256 like a wheel: " +
      "a different file is refused (was: installed unchecked)",
    async () => {
      const saved = process.env.LOREKEEPER_OFFLINE;
      process.env.LOREKEEPER_OFFLINE = "0";
      try {
        const lines: string[] = [];
        const err = await refused(
          installByName("all-MiniLM-L6-v2", {
            modelsDir,
            routes: ["fastembed"],
            log: (l) => lines.push(l),
            // What a tampered mirror or a changed upstream would hand over: a working model, but not the published one.
            fastembedDownload: async (_m, work) => {
              const dir = join(work, "fast-all-MiniLM-L6-v2");
              cpSync(good, dir, { recursive: true });
              return dir;
            },
          }),
        );
        expect(err.message).toContain("not one published for sentence-transformers/all-MiniLM-L6-v2");
        expect(err.message).toContain("refusing fastembed's download");
        expect(installed()).toEqual([]);
      } finally {
        if (saved === undefined) delete process.env.LOREKEEPER_OFFLINE;
        else process.env.LOREKEEPER_OFFLINE = saved;
      }
    },
  );
});
