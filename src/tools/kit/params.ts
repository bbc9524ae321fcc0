/**
 * zod builders for tool parameters: vocabularies accept any case and "-"/"_"/space variants; numbers and booleans
 * also their string forms ("3", "true"), as some clients send everything as strings.
 */
import * as z from "zod";
import { bool as readBool } from "../../entities/normalize/read.ts";
import { XP_BY_CR } from "../../entities/normalize/vocab.ts";
import { parseCr } from "../../entities/types.ts";
import { quote } from "./validate.ts";
import { canonical } from "./vocab.ts";

export function numeric(v: unknown): unknown {
  if (typeof v === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) return Number(v);
  return v;
}

export function vocab<const T extends readonly [string, ...string[]]>(
  values: T,
  description: string,
  aliases: Record<string, string> = {},
) {
  return z.preprocess((v) => canonical(v, values, aliases), z.enum(values)).describe(description);
}

/** A vocabulary parameter with a default (kept inside the pipe so that JSON Schema shows it). */
export function vocabWithDefault<const T extends readonly [string, ...string[]]>(
  values: T,
  fallback: T[number],
  description: string,
  aliases: Record<string, string> = {},
) {
  return z
    .preprocess((v) => canonical(v, values, aliases), z.enum(values).default(fallback as never))
    .describe(description);
}

export function int(min: number, max: number, description: string) {
  return z.preprocess(numeric, z.number().int().min(min).max(max)).describe(description);
}

export function num(min: number, max: number, description: string) {
  return z.preprocess(numeric, z.number().min(min).max(max)).describe(description);
}

export function bool(description: string) {
  return z.preprocess((v) => readBool(v) ?? v, z.boolean()).describe(description);
}

/** Free text, trimmed; an empty string counts as not given. */
export function text(description: string, maxLength = 500) {
  return z
    .string()
    .max(maxLength)
    .transform((s) => s.trim())
    .describe(description);
}

/** Lower-cased free text (keys such as class_key, section, casting_time). */
export function key(description: string) {
  return z
    .string()
    .max(200)
    .transform((s) => s.trim().toLowerCase())
    .describe(description);
}

// C0 and C1 controls: SQLite ends a LIKE pattern at a NUL, so "\u0000" matched every row with any value.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A filter-table value (a trait, a spell cast, a section): lower-cased text that must say something. A blank one
 * is refused, not dropped (an empty `trait` read as "any creature" answers another question), as are controls.
 */
export function filterKey(description: string) {
  return z
    .string()
    .max(200)
    .refine((s) => s.trim() !== "", { message: "must not be empty or blank (leave it out to match any)" })
    .refine((s) => !CONTROL.test(s), { message: "must not contain control characters" })
    .transform((s) => s.trim().toLowerCase())
    .describe(description);
}

/**
 * A challenge rating: a number, or its written form ("1/4", "5"). tools/list advertises it as a
 * number (lean-schema.ts: no `type: [..]` union there); the written forms are accepted all the same.
 */
export function cr(description: string, exact = false) {
  return z
    .union([z.number(), z.string()], { error: 'must be a number from 0 to 30 or a fraction such as "1/4"' })
    .transform((v, ctx) => {
      const n = parseCr(v);
      if (n === undefined || n < 0 || n > 30) {
        ctx.addIssue({
          code: "custom",
          message: `must be a number from 0 to 30 or a fraction such as "1/4" (got ${quote(v)})`,
          input: v,
        });
        return z.NEVER;
      }
      if (exact && !XP_BY_CR.has(n)) {
        ctx.addIssue({
          code: "custom",
          message: `${quote(v)} is not a challenge rating; use 0, 1/8, 1/4, 1/2 or a whole number 1–30`,
          input: v,
        });
        return z.NEVER;
      }
      return n;
    })
    .describe(description);
}

/** The rules of an SRD by year; a number (2014) is read as its text. */
export function rulesEdition(description: string) {
  return z
    .preprocess((v) => (typeof v === "number" ? String(v) : v), z.enum(["2024", "2014"]).optional())
    .describe(description);
}

export function documents() {
  return z
    .preprocess((v) => (typeof v === "string" ? [v] : v), z.array(z.string().trim().min(1).max(100)).max(50))
    .describe("");
}

export function limit() {
  return z.preprocess(numeric, z.number().int().min(1).max(100).default(20)).describe("");
}

/** Entries to skip (absent = 0, which tools/list need not say). */
export function offset() {
  return z.preprocess(numeric, z.number().int().min(0).optional()).describe("");
}

const DETAILS = ["summary", "full"] as const;

/** The paging and view parameters every search tool takes. */
export function view() {
  return { offset: offset(), detail: vocab(DETAILS, "").optional(), all_versions: bool("").optional() };
}

export type ViewArgs = z.output<z.ZodObject<ReturnType<typeof view>>>;

/** `documents` of the search tools, saying what the two SRD keys are (list_documents costs ~9,000 characters). */
export function bookKeys() {
  return documents().describe("srd-2014 = SRD 5.1, srd-2024 = SRD 5.2; more: list_documents");
}

/** Parameters shared by the five entity tools (the tool descriptions carry the examples). */
export function common() {
  return {
    // Control characters refused: a NUL cut its LIKE pattern short ("Fire\u0000" matched every "Fire…").
    name: z
      .string()
      .max(200)
      .refine((s) => !CONTROL.test(s), { message: "must not contain control characters" })
      .transform((s) => s.trim())
      .describe("Exact name, any case; wildcards fire*")
      .optional(),
    search: text("Its name if known, else what it does").optional(),
    documents: bookKeys().optional(),
    limit: limit(),
    ...view(),
  };
}
