/**
 * Hand-made entities with their kind's whole canonical data, as a sync writes it: the test entities
 * of support/entities.ts carry only the fields a test needs, which a content pack's check refuses.
 * The blanks come from the kind's schema (src/entities/kinds.ts): null where a field may be
 * null, an empty list or object, "", 0 or false.
 */
import type { GenericSchema } from "valibot";
import { KIND_SCHEMAS } from "../../src/entities/kinds.ts";
import type { Entity, EntityKind, JsonObject, JsonValue } from "../../src/entities/types.ts";

type Walked = GenericSchema & { entries?: Record<string, Walked>; wrapped?: Walked };

function blank(s: Walked): JsonValue | undefined {
  switch (s.type) {
    case "nullable":
      return null;
    case "optional":
      return undefined;
    case "object": {
      const out: JsonObject = {};
      for (const [k, e] of Object.entries(s.entries ?? {})) {
        const b = blank(e);
        if (b !== undefined) out[k] = b;
      }
      return out;
    }
    case "array":
      return [];
    case "record":
      return {};
    case "string":
      return "";
    case "number":
      return 0;
    case "boolean":
      return false;
    default:
      throw new Error(`no blank for a ${s.type} schema`);
  }
}

/** A kind's canonical data with every field blank. */
export function blankData(kind: EntityKind): JsonObject {
  return blank(KIND_SCHEMAS[kind] as Walked) as JsonObject;
}

/** `e` with its data filled out to its kind's whole shape (its own fields kept). */
export function withCanonicalData(e: Entity): Entity {
  return { ...e, data: { ...blankData(e.kind), ...e.data } };
}
