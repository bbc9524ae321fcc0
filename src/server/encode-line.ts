/**
 * One JSON-RPC message as the JSON text a line transport writes, with a tool answer's structured
 * content encoded once. A tool result carries its answer twice, as JSON text and as the object
 * (structuredContent); that object's JSON is the text itself (tools/response.ts answerJson), so
 * the line is the message's JSON with the object left out, and its text put in its place: the same
 * bytes JSON.stringify(message) gives, for about half the encoding. Pure.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { answerJson } from "../tools/response.ts";

/** Stands in for the structured content while the rest is encoded (a NUL never reaches the wire unescaped). */
const MARK = "\u0000lorekeeper:structuredContent\u0000";
const MARK_JSON = JSON.stringify(MARK);

export function encodeMessage(message: JSONRPCMessage): string {
  const result = "result" in message ? (message.result as Record<string, unknown>) : undefined;
  const structured = result?.structuredContent;
  const json = structured !== null && typeof structured === "object" ? answerJson(structured) : undefined;
  if (json === undefined) return JSON.stringify(message);
  const rest = JSON.stringify({ ...message, result: { ...result, structuredContent: MARK } });
  const at = rest.indexOf(MARK_JSON);
  // The mark once, where the structured content goes (a client could send it as its request id).
  if (at === -1 || rest.indexOf(MARK_JSON, at + MARK_JSON.length) !== -1) return JSON.stringify(message);
  return rest.slice(0, at) + json + rest.slice(at + MARK_JSON.length);
}
