/**
 * The shape of one tool and what it runs with. `defineTool` keeps the argument types of a tool's `run` precise
 * while the server sees every tool through one erased interface.
 */
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/server";
import type * as z from "zod";
import type { DataGate } from "./data-gate.ts";
import type { DataProgress, ToolDeps } from "./deps.ts";
import { toolError } from "../answer/response.ts";
import { parseToolArgs } from "./validate.ts";

export interface ToolContext {
  deps: ToolDeps;
  gate: DataGate;
  /** Forwards first-use progress to the client (a no-op when it sent no progress token). */
  progress: (p: DataProgress) => void;
}

export interface ToolSpec<S extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: S;
  output: z.ZodObject;
  /** True when the first call may fetch from upstream. */
  openWorld: boolean;
  run(args: z.output<S>, ctx: ToolContext): Promise<CallToolResult>;
}

export interface ToolDef extends Omit<ToolSpec<z.ZodObject>, "openWorld" | "run"> {
  annotations: ToolAnnotations;
  /** Validates raw arguments (friendly tool error when they are wrong), then runs. */
  call(raw: unknown, ctx: ToolContext): Promise<CallToolResult>;
}

export function defineTool<S extends z.ZodObject>({ openWorld, run, ...spec }: ToolSpec<S>): ToolDef {
  return {
    ...spec,
    // Idempotent/destructive hints mean something only when readOnlyHint is false; openWorldHint defaults to true.
    annotations: { readOnlyHint: true, ...(openWorld ? {} : { openWorldHint: false }) },
    async call(raw, ctx) {
      const parsed = parseToolArgs(spec.name, spec.input, raw);
      if (!parsed.ok) return toolError(parsed.message);
      return run(parsed.data, ctx);
    },
  };
}
