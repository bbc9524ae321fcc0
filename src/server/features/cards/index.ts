/**
 * MCP Apps cards: one self-contained HTML page per card (`ui://lorekeeper/…`), linked from the tools in tools/list
 * (tools/answer/card-uris.ts, not in resources/list) and served by resources/read. Each page inlines its CSS and
 * script, fetches nothing (its CSP forbids it) and renders the tool result the host posts with text nodes only.
 */
import type { ReadResourceResult } from "@modelcontextprotocol/server";
import { RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import { CARD_URIS } from "../../../tools/answer/card-uris.ts";
import { HOMEBREW_FORMATS } from "../../../sources/index.ts";
import CARD_CSS from "./assets/card.css" with { type: "text" };
import CLASS_SCRIPT from "./assets/class.js" with { type: "text" };
import CREATURE_SCRIPT from "./assets/creature.js" with { type: "text" };
import ENCOUNTER_SCRIPT from "./assets/encounter.js" with { type: "text" };
import ITEM_SCRIPT from "./assets/item.js" with { type: "text" };
import RUNTIME_SCRIPT from "./assets/runtime.js" with { type: "text" };
import SPELL_SCRIPT from "./assets/spell.js" with { type: "text" };
import TABLE_CSS from "./assets/table.css" with { type: "text" };

/** The runtime names the homebrew formats the way the server does: the one list is spliced in. */
const HOMEBREW_SLOT = "/* HOMEBREW_FORMATS */ {}";
if (!RUNTIME_SCRIPT.includes(HOMEBREW_SLOT)) throw new Error("card runtime lost its homebrew slot");
const CARD_RUNTIME = RUNTIME_SCRIPT.replace(HOMEBREW_SLOT, JSON.stringify(HOMEBREW_FORMATS));

/** No network at all: inline style and script only. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:";

function page(title: string, script: string, css: string): string {
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    '<meta name="viewport" content="width=device-width,initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<title>${title}</title><style>${css}</style></head>`,
    `<body><main id="root" aria-live="polite"><p class="note">Waiting for the LoreKeeper answer…</p></main>`,
    `<script>"use strict";${CARD_RUNTIME}${script}LK.start();</script></body></html>`,
  ].join("\n");
}

const SCRIPTS: Record<string, { title: string; script: string; tables?: boolean }> = {
  search_creature: { title: "LoreKeeper creature stat block", script: CREATURE_SCRIPT },
  search_spell: { title: "LoreKeeper spell card", script: SPELL_SCRIPT },
  search_equipment: { title: "LoreKeeper item card", script: ITEM_SCRIPT },
  build_encounter: { title: "LoreKeeper encounter", script: ENCOUNTER_SCRIPT, tables: true },
  class_progression: { title: "LoreKeeper class table", script: CLASS_SCRIPT, tables: true },
};

/** Every card's page by its URI, built once at load (a few tens of KB of strings). */
const PAGES = new Map(
  Object.entries(CARD_URIS).map(([tool, uri]) => {
    const s = SCRIPTS[tool];
    if (!s) throw new Error(`no card script for ${tool}`);
    return [uri, page(s.title, s.script, s.tables ? CARD_CSS + TABLE_CSS : CARD_CSS)];
  }),
);

/** resources/read of a card URI (undefined for any other URI). */
export function readCardResource(uri: string): ReadResourceResult | undefined {
  const html = PAGES.get(uri);
  if (html === undefined) return undefined;
  return { contents: [{ uri, mimeType: RESOURCE_MIME_TYPE, text: html, _meta: { ui: { prefersBorder: true } } }] };
}
