/**
 * The cards' one stylesheet, inlined into every template: a classic stat block look, light by
 * default, dark under `prefers-color-scheme: dark` or when the host says so (`data-theme`), and a
 * single column that fits narrow panes. System fonts only: nothing is fetched.
 */
const LIGHT = "--bg:#fdf9f0;--fg:#1f1a14;--accent:#7a200d;--rule:#b8913f;--muted:#5f5446;--chip:#efe5cf;--warn:#8a4b00";
const DARK = "--bg:#1c1915;--fg:#ece4d6;--accent:#e08a6e;--rule:#9c7a35;--muted:#b3a68f;--chip:#2e2822;--warn:#f0b45c";

export const CARD_CSS = `
:root{color-scheme:light dark;${LIGHT}}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){${DARK}}}
:root[data-theme=dark]{${DARK}}
:root[data-theme=light]{${LIGHT}}
*{box-sizing:border-box}
body{margin:0;padding:8px;background:var(--bg);color:var(--fg);font:14px/1.45 Georgia,"Times New Roman",serif;
  overflow-wrap:anywhere}
.card{max-width:720px;margin:0 auto 12px;padding:10px 14px;border-top:4px solid var(--rule);
  border-bottom:4px solid var(--rule)}
h2{margin:0;color:var(--accent);font-size:1.5em;font-variant:small-caps;line-height:1.2}
h3{margin:12px 0 4px;color:var(--accent);font-size:1.1em;font-variant:small-caps;border-bottom:1px solid var(--accent);
  font-weight:normal}
.sub{margin:2px 0 6px;font-style:italic}
.meta{display:flex;flex-wrap:wrap;gap:4px;margin:4px 0;font:12px/1.3 system-ui,sans-serif}
.chip{background:var(--chip);color:var(--muted);border-radius:3px;padding:1px 6px}
.chip.hb{background:var(--warn);color:var(--bg);font-weight:bold}
hr{border:0;height:2px;background:var(--accent);margin:8px 0}
.line{margin:2px 0}
.line b,.entry b{color:var(--accent)}
.abil{display:grid;grid-template-columns:repeat(6,1fr);gap:2px;text-align:center;margin:4px 0}
.abil div{min-width:0}
.abil b{display:block;color:var(--accent)}
.entry{margin:6px 0}
.entry p,.desc p{margin:0 0 6px}
ul{margin:0 0 6px;padding-left:20px}
pre{white-space:pre-wrap;font:12px/1.35 ui-monospace,monospace;background:var(--chip);padding:6px;margin:0 0 6px}
details summary{cursor:pointer;color:var(--muted)}
.note{color:var(--muted);font:12px/1.4 system-ui,sans-serif;margin:6px 0 0}
.err{color:var(--warn)}
@media (max-width:420px){.abil{grid-template-columns:repeat(3,1fr)}body{padding:4px}.card{padding:8px}}
`;

/** Extra rules of the encounter and class cards. */
export const TABLE_CSS = `
table{border-collapse:collapse;width:100%;margin:4px 0;font-size:13px}
th,td{border-bottom:1px solid var(--chip);padding:3px 4px;text-align:left;vertical-align:top}
th{color:var(--accent);font-weight:bold}
.scroll{overflow-x:auto}
.bar{display:flex;height:22px;margin:6px 0 2px;border-radius:3px;overflow:hidden;position:relative;
  font:11px/22px system-ui,sans-serif}
.bar div{flex:1;text-align:center;color:var(--fg);background:var(--chip);border-right:1px solid var(--bg);
  white-space:nowrap;overflow:hidden}
.bar div.on{background:var(--accent);color:var(--bg);font-weight:bold}
.big{font-size:1.2em;color:var(--accent);font-weight:bold}
`;
