/** Plain JSON values: what upstream bodies and OrcBrew items are read into (re-exported by src/entities/types.ts). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };
export type JsonObject = { [k: string]: JsonValue };
