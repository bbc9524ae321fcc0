/**
 * Bundler plugin used by build.ts (never at run time): rewrites the native-addon loaders of
 * onnxruntime-node and usearch so that, inside the compiled binary, they ask
 * `globalThis.__lorekeeperNative` (src/native/loader.ts) for the addon extracted to the cache folder,
 * instead of searching node_modules (which does not exist on the user's machine) or letting Bun
 * unpack a host-only copy to /tmp. Every rewrite checks that its pattern matched, so a dependency
 * upgrade that changes a loader fails the build loudly instead of producing a broken binary.
 */
import type { BunPlugin } from "bun";
import type { NativeName } from "./manifest.ts";

const call = (name: NativeName) =>
  `(globalThis.__lorekeeperNative ? globalThis.__lorekeeperNative.load(${JSON.stringify(name)}) : ` +
  `(() => { throw new Error("LoreKeeper's native loader is not installed (${name})"); })())`;

interface Rewrite {
  name: string;
  filter: RegExp;
  apply(src: string): string | undefined;
}

function replaceOnce(src: string, pattern: RegExp, by: string): string | undefined {
  return pattern.test(src) ? src.replace(pattern, by) : undefined;
}

export const REWRITES: Rewrite[] = [
  {
    name: "onnxruntime-node binding",
    filter: /[\\/]onnxruntime-node[\\/]dist[\\/]binding\.js$/,
    apply: (src) =>
      replaceOnce(
        src,
        /require\(`\.\.\/bin\/napi-v3\/\$\{process\.platform\}\/\$\{process\.arch\}\/onnxruntime_binding\.node`\)/,
        call("onnxruntime"),
      ),
  },
  {
    name: "usearch loader",
    filter: /[\\/]usearch[\\/]javascript[\\/]dist[\\/](esm|cjs)[\\/]usearch\.js$/,
    apply: (src) => {
      const a = replaceOnce(
        src,
        /\(0, node_gyp_build_1\.default\)\(getBuildDir\(getDirName\(\)\)\)|\bbuild\(getBuildDir\(getDirName\(\)\)\)/,
        call("usearch"),
      );
      // the "dummy code for ncc" block would make the bundler embed every platform's prebuild
      return a?.replace(/if \(process\.uptime\(\) < 0\) \{[\s\S]*?\n\}/, "");
    },
  },
];

export function nativeLoaderPlugin(): BunPlugin {
  return {
    name: "lorekeeper-native-loaders",
    setup(build) {
      for (const r of REWRITES) {
        build.onLoad({ filter: r.filter }, async (args) => {
          const src = await Bun.file(args.path).text();
          const out = r.apply(src);
          if (out === undefined)
            throw new Error(`build.ts: the ${r.name} (${args.path}) changed; update src/native/build-plugin.ts`);
          return { contents: out, loader: "js" };
        });
      }
    },
  };
}
