/**
 * Size limits on one imported entity (OrcBrew), documented in docs/homebrew.md. An entity over a
 * limit is skipped at import with the reason (the rest of its pack is imported): one hostile or
 * broken item must not make every answer oversized. The response budget (tools/answer/budget.ts) cuts
 * whatever still comes through at answer time. Pure.
 */
import type { Entity, JsonValue } from "./types.ts";

export const ENTITY_LIMITS = {
  /** Characters of a name (the tools' `name` parameter accepts at most 200 too) and of a key. */
  nameChars: 200,
  keyChars: 200,
  /** Items of any one list (spell lists, features, actions...). */
  listItems: 1000,
  /** Characters of the entity's data as JSON plus its search text. */
  dataChars: 200_000,
} as const;

/** A name shortened to the limit (pack names become document names). */
export function capName(name: string): string {
  return name.length > ENTITY_LIMITS.nameChars ? `${name.slice(0, ENTITY_LIMITS.nameChars - 1)}…` : name;
}

function longestList(v: JsonValue | undefined): number {
  let max = 0;
  const stack: Array<JsonValue | undefined> = [v];
  while (stack.length) {
    const x = stack.pop();
    if (Array.isArray(x)) {
      max = Math.max(max, x.length);
      for (const y of x) stack.push(y);
    } else if (x && typeof x === "object") for (const y of Object.values(x)) stack.push(y);
  }
  return max;
}

/** Why `e` is over a limit (a sentence), or undefined. */
export function oversizeReason(e: Entity): string | undefined {
  const L = ENTITY_LIMITS;
  if (e.name.length > L.nameChars) return `its name is ${e.name.length} characters long; the limit is ${L.nameChars}`;
  if (e.key.length > L.keyChars) return `its key is ${e.key.length} characters long; the limit is ${L.keyChars}`;
  const list = Math.max(longestList(e.data), longestList(e.filters as JsonValue));
  if (list > L.listItems) return `it holds a list of ${list} items; the limit is ${L.listItems}`;
  const size = JSON.stringify(e.data).length + e.text.length;
  if (size > L.dataChars) return `it is ${size} characters long; the limit is ${L.dataChars}`;
  return undefined;
}
