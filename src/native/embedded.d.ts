/** The module build.ts generates for each compiled binary (resolved by its bundler plugin). */
declare module "lorekeeper:embedded" {
  import type { EmbeddedBundle } from "./manifest.ts";
  export const EMBEDDED: EmbeddedBundle;
}
