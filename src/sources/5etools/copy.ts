/**
 * 5etools `_copy`: a record that is another record of the same file plus changes (`_mod`). Resolved
 * against the records of the same type in the same file; a record whose base is not in the file is
 * kept with only the fields it states (the caller notes it). `_mod` operations this file cannot
 * apply are returned as notes, never dropped silently. Pure: records are copied, never changed.
 */
import type { JsonObject, JsonValue } from "../../entities/types.ts";
import { lower } from "./normalize/common.ts";
import { arr, rec, recs } from "../../entities/normalize/read.ts";

function same(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export interface CopyOutcome {
  record: JsonObject;
  notes: string[];
  /** The base named in `_copy` was not in the file. */
  baseMissing: boolean;
}

/** Does `x` match a `replace`/`names` selector: a name, a string, `{ index }` or `{ regex }`? */
function matches(x: JsonValue, sel: JsonValue | undefined, i: number): boolean {
  if (typeof sel === "string") return typeof x === "string" ? x === sel : lower(rec(x)?.name) === sel.toLowerCase();
  const o = rec(sel);
  if (o && typeof o.index === "number") return o.index === i;
  if (o && typeof o.regex === "string") {
    try {
      const re = new RegExp(o.regex, typeof o.flags === "string" ? o.flags : "");
      return typeof x === "string" ? re.test(x) : re.test(String(rec(x)?.name ?? ""));
    } catch {
      return false;
    }
  }
  return false;
}

function replaceText(v: JsonValue, re: RegExp, withText: string): JsonValue {
  if (typeof v === "string") return v.replace(re, withText);
  if (Array.isArray(v)) return v.map((x) => replaceText(x, re, withText));
  const o = rec(v);
  if (!o) return v;
  const out: JsonObject = {};
  // Names stay as they are: 5etools replaces only in the text of entries.
  for (const [k, x] of Object.entries(o)) out[k] = k === "name" || k === "type" ? x : replaceText(x, re, withText);
  return out;
}

const TEXT_PROPS = [
  "entries",
  "trait",
  "action",
  "bonus",
  "reaction",
  "legendary",
  "mythic",
  "headerEntries",
  "footerEntries",
  "entriesHigherLevel",
];

function addNumber(v: JsonValue | undefined, f: (n: number) => number): JsonValue | undefined {
  if (typeof v === "number") return f(v);
  if (typeof v === "string" && /^[+-]?\d+$/.test(v.trim())) {
    const n = f(Number(v));
    return n >= 0 ? `+${n}` : String(n);
  }
  const o = rec(v);
  if (o) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(o)) out[k] = addNumber(x, f) ?? x;
    return out;
  }
  return v;
}

/** Apply one `_mod` operation to `data[prop]`; returns why it could not be applied, or null. */
function applyOp(data: JsonObject, prop: string, op: JsonObject): string | null {
  const mode = typeof op.mode === "string" ? op.mode : "(none)";
  const items = Array.isArray(op.items) ? op.items : op.items !== undefined ? [op.items] : [];
  const list = (): JsonValue[] => {
    const cur = data[prop];
    return Array.isArray(cur) ? [...cur] : cur === undefined ? [] : [cur];
  };
  const set = (x: JsonValue[]): null => {
    data[prop] = x;
    return null;
  };
  switch (mode) {
    case "appendArr":
    case "prependArr":
    case "insertArr": {
      const a = list();
      let at = mode === "prependArr" ? 0 : a.length;
      if (mode === "insertArr" && typeof op.index === "number") at = Math.max(0, Math.min(a.length, op.index));
      a.splice(at, 0, ...structuredClone(items));
      return set(a);
    }
    case "appendIfNotExistsArr": {
      const a = list();
      for (const it of items) if (!a.some((x) => same(x, it))) a.push(structuredClone(it));
      return set(a);
    }
    case "removeArr": {
      const names = Array.isArray(op.names) ? op.names : op.names !== undefined ? [op.names] : items;
      const a = list();
      const kept = a.filter((x, i) => !names.some((n) => matches(x, n, i) || same(x, n)));
      if (kept.length === a.length && op.force !== true)
        return `removeArr found none of ${JSON.stringify(names).slice(0, 80)} in ${prop}`;
      return set(kept);
    }
    case "replaceArr":
    case "replaceOrAppendArr": {
      const a = list();
      const i = a.findIndex((x, j) => matches(x, op.replace, j));
      if (i < 0 && mode === "replaceOrAppendArr") return set([...a, ...structuredClone(items)]);
      if (i < 0) return `replaceArr found no ${JSON.stringify(op.replace).slice(0, 80)} in ${prop}`;
      a.splice(i, 1, ...structuredClone(items));
      return set(a);
    }
    case "replaceTxt": {
      if (typeof op.replace !== "string") return "replaceTxt without a text to replace";
      let re: RegExp;
      try {
        re = new RegExp(op.replace, `g${typeof op.flags === "string" ? op.flags.replace(/g/g, "") : ""}`);
      } catch {
        return `replaceTxt has an invalid pattern ${JSON.stringify(op.replace).slice(0, 80)}`;
      }
      const withText = typeof op.with === "string" ? op.with : "";
      const props = prop === "*" ? TEXT_PROPS : [prop];
      for (const p of props) if (data[p] !== undefined) data[p] = replaceText(data[p]!, re, withText);
      return null;
    }
    case "prefixSuffixStringProp": {
      const p = typeof op.prop === "string" ? op.prop : prop;
      if (typeof data[p] !== "string") return `prefixSuffixStringProp: ${p} is not a text`;
      data[p] =
        `${typeof op.prefix === "string" ? op.prefix : ""}${data[p]}${typeof op.suffix === "string" ? op.suffix : ""}`;
      return null;
    }
    case "setProp": {
      const path = typeof op.prop === "string" ? op.prop.split(".") : [prop];
      let cur: JsonObject = data;
      for (const k of path.slice(0, -1)) {
        const next = rec(cur[k]);
        if (!next) cur[k] = {};
        cur = rec(cur[k])!;
      }
      cur[path[path.length - 1]!] = structuredClone(op.value ?? null);
      return null;
    }
    case "scalarAddProp":
    case "scalarMultProp": {
      const p = typeof op.prop === "string" ? op.prop : prop;
      const scalar = typeof op.scalar === "number" ? op.scalar : null;
      if (scalar === null || data[p] === undefined) return `${mode}: nothing to change in ${p}`;
      const f =
        mode === "scalarAddProp"
          ? (n: number) => n + scalar
          : (n: number) => (op.floor === true ? Math.floor(n * scalar) : n * scalar);
      data[p] = addNumber(data[p], f) ?? data[p]!;
      return null;
    }
    case "addSenses": {
      const senses = recs(Array.isArray(op.senses) ? op.senses : [op.senses ?? null]);
      const cur = typeof data.senses === "string" ? [data.senses] : [...arr(data.senses)];
      for (const s of senses)
        if (typeof s.type === "string")
          cur.push(`${s.type} ${typeof s.range === "number" ? `${s.range} ft.` : ""}`.trim());
      data.senses = cur;
      return null;
    }
    case "addSpells": {
      const sc = Array.isArray(data.spellcasting) ? structuredClone(data.spellcasting) : [];
      const first = rec(sc[0]);
      if (!first) return "addSpells: the creature has no spellcasting block to add to";
      for (const key of ["spells", "daily", "rest", "weekly"] as const) {
        const add = rec(op[key]);
        if (!add) continue;
        const into = rec(first[key]) ?? {};
        for (const [k, v] of Object.entries(add)) {
          if (key === "spells") {
            const lvl = rec(into[k]) ?? { spells: [] };
            const addSp = rec(v);
            lvl.spells = [...arr(lvl.spells), ...arr(addSp?.spells)];
            if (addSp && addSp.slots !== undefined) lvl.slots = addSp.slots;
            into[k] = lvl;
          } else into[k] = [...arr(into[k]), ...arr(v)];
        }
        first[key] = into;
      }
      if (Array.isArray(op.will)) first.will = [...arr(first.will), ...op.will];
      data.spellcasting = sc;
      return null;
    }
    default:
      return `the _mod mode "${mode}" is not supported by this importer`;
  }
}

function applyMods(record: JsonObject, mod: JsonObject, notes: string[]): void {
  for (const [prop, raw] of Object.entries(mod)) {
    const ops = Array.isArray(raw) ? raw : [raw];
    for (const o of ops) {
      const op = typeof o === "string" ? ({ mode: o } as JsonObject) : rec(o);
      if (!op) {
        notes.push(`_mod on ${prop}: not an operation`);
        continue;
      }
      const why = applyOp(record, prop === "_" ? (typeof op.prop === "string" ? op.prop : "_") : prop, op);
      if (why) notes.push(`_mod on ${prop} could not be applied: ${why}`);
    }
  }
}

/** Fields a copy never takes from its base (5etools keeps them per record). */
const NOT_COPIED = new Set([
  "_copy",
  "_versions",
  "page",
  "otherSources",
  "reprintedAs",
  "srd",
  "basicRules",
  "isReprinted",
]);

/**
 * Resolve `_copy` of every record of one type. `records` are that type's records of the file.
 * Chains resolve (a copy of a copy); a cycle or a chain deeper than 8 stops with a note.
 */
export function resolveCopies(records: readonly JsonObject[]): CopyOutcome[] {
  const byName = Map.groupBy(records, (r) => lower(r.name));
  const done = new Map<JsonObject, CopyOutcome>();
  const busy = new Set<JsonObject>();
  const resolve = (r: JsonObject, depth: number): CopyOutcome => {
    const hit = done.get(r);
    if (hit) return hit;
    const copy = rec(r._copy);
    if (!copy) return { record: r, notes: [], baseMissing: false };
    busy.add(r);
    const notes: string[] = [];
    const candidates = (byName.get(lower(copy.name)) ?? []).filter((b) => b !== r);
    const base = candidates.find((b) => !copy.source || lower(b.source) === lower(copy.source)) ?? candidates[0];
    let merged: JsonObject;
    let baseMissing = false;
    if (!base || depth > 8 || busy.has(base)) {
      baseMissing = true;
      notes.push(
        base
          ? "its _copy chain is longer than 8 (or loops); imported with only the fields it states"
          : `its _copy base "${String(copy.name)}"${copy.source ? ` (${String(copy.source)})` : ""} is not in this ` +
              `file; imported with only the fields it states`,
      );
      merged = structuredClone(r);
      delete merged._copy;
      const mod = rec(copy._mod);
      if (mod) notes.push(`_mod of ${Object.keys(mod).join(", ")} not applied: the base is not in this file`);
    } else {
      const b = resolve(base, depth + 1);
      merged = {};
      for (const [k, x] of Object.entries(b.record)) if (!NOT_COPIED.has(k)) merged[k] = structuredClone(x);
      for (const [k, x] of Object.entries(r)) if (k !== "_copy") merged[k] = structuredClone(x);
      const mod = rec(copy._mod);
      if (mod) applyMods(merged, mod, notes);
    }
    const out = { record: merged, notes, baseMissing };
    busy.delete(r);
    done.set(r, out);
    return out;
  };
  return records.map((r) => resolve(r, 0));
}
