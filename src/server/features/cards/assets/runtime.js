/**
 * The browser side shared by every card (ES2020, inlined before the card's script in one strict
 * `<script>`): the MCP Apps bridge, hand-written after @modelcontextprotocol/ext-apps (its App class is
 * ~34 KB minified, too much for a ≤ 50 KB page): JSON-RPC 2.0 over `postMessage` with the parent window;
 * DOM helpers that only ever set `textContent` (never HTML, never a link); a tiny safe renderer for the
 * markdown of descriptions; the card header and a generic summary row. A card script sets
 * `LK.render(root, row, answer)` (once per result row) or, for answers that are one object
 * (build_encounter, class_progression), `LK.renderAnswer(root, answer)`. The server splices its list of
 * homebrew formats into the HOMEBREW_FORMATS slot.
 */
window.LK = (() => {
  const MAX_TEXT = 20000,
    MAX_NAME = 300;
  function cut(s, n) {
    s = String(s);
    return s.length > n ? `${s.slice(0, n)}…` : s;
  }
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = cut(text, MAX_TEXT);
    return e;
  }
  function add(parent, child) {
    if (child) parent.appendChild(child);
    return child;
  }
  function str(v) {
    return typeof v === "string" && v.trim() !== "" ? v : null;
  }
  function fmt(v) {
    if (v === null || v === undefined || v === "") return null;
    if (typeof v === "string") return v;
    if (typeof v === "number") return String(v);
    if (typeof v === "boolean") return v ? "yes" : "no";
    if (Array.isArray(v)) {
      const a = v.map(fmt).filter(Boolean);
      return a.length ? a.join(", ") : null;
    }
    if (typeof v === "object") {
      if (typeof v.name === "string") return v.detail ? `${v.name} (${fmt(v.detail)})` : v.name;
      const parts = [];
      Object.keys(v).forEach((k) => {
        const f = fmt(v[k]);
        if (f) parts.push(`${k.replace(/_/g, " ")} ${f}`);
      });
      return parts.length ? parts.join(", ") : null;
    }
    return null;
  }
  function cap(s) {
    return s ? s.charAt(0).toUpperCase() + s.slice(1) : s;
  }
  function signed(n) {
    return (n >= 0 ? "+" : "") + n;
  }
  /** "Label value" on one line; nothing when the value is empty. */
  function line(parent, label, value) {
    const f = fmt(value);
    if (!f) return null;
    const p = add(parent, el("div", "line"));
    add(p, el("b", null, `${label} `));
    p.appendChild(document.createTextNode(cut(f, MAX_TEXT)));
    return p;
  }
  /** Inline **bold** and *italic* / _italic_, as text nodes inside strong/em. */
  function inline(parent, text) {
    let re = /(\*\*|__)(.+?)\1|(\*|_)([^*_]+?)\3/g,
      last = 0,
      m;
    text = cut(text, MAX_TEXT);
    while ((m = re.exec(text))) {
      if (m.index > last) parent.appendChild(document.createTextNode(text.slice(last, m.index)));
      parent.appendChild(el(m[2] !== undefined ? "strong" : "em", null, m[2] !== undefined ? m[2] : m[4]));
      last = re.lastIndex;
    }
    if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
  }
  /** Markdown-ish text → paragraphs, lists and text tables; never HTML. */
  function prose(parent, text, lead) {
    if (!str(text)) return;
    const box = add(parent, el("div", "desc"));
    const blocks = cut(text, MAX_TEXT).split(/\n\s*\n/);
    blocks.forEach((block, i) => {
      const lines = block.split("\n").filter((l) => l.trim() !== "");
      if (!lines.length) return;
      if (lines.every((l) => /^\s*\|/.test(l))) {
        add(box, el("pre", null, lines.join("\n")));
        return;
      }
      if (lines.every((l) => /^\s*([-*•]|\d+\.)\s+/.test(l))) {
        const ul = add(box, el("ul"));
        lines.forEach((l) => {
          inline(add(ul, el("li")), l.replace(/^\s*([-*•]|\d+\.)\s+/, ""));
        });
        return;
      }
      const p = add(box, el("p"));
      if (i === 0 && lead) {
        add(p, el("b", null, `${lead} `));
      }
      inline(p, lines.join(" ").replace(/^#+\s*/, ""));
    });
  }
  const HOMEBREW = new Map(Object.entries(/* HOMEBREW_FORMATS */ {}));
  /** The homebrew format's name ("OrcBrew", "5etools"), or null for official and open content. */
  function homebrewFormat(r) {
    if (HOMEBREW.has(r.document_source)) return HOMEBREW.get(r.document_source);
    const m = /^lorekeeper:\/\/[^/]+\/([a-z0-9_]+):/.exec(String(r.uri || ""));
    return m && HOMEBREW.has(m[1]) ? HOMEBREW.get(m[1]) : null;
  }
  function isHomebrew(r) {
    return homebrewFormat(r) !== null;
  }
  function edition(r) {
    const k = String(r.document_key || "").toLowerCase();
    if (/2024|5\.2/.test(k) || /5\.2/.test(String(r.document_name || ""))) return "2024 rules";
    if (/2014|^srd$|5\.1/.test(k) || /5\.1/.test(String(r.document_name || ""))) return "2014 rules";
    return null;
  }
  /** Title, subtitle and the chips naming the document, edition and homebrew. */
  function header(card, r, subtitle) {
    add(card, el("h2", null, cut(r.name || "(unnamed)", MAX_NAME)));
    if (subtitle) add(card, el("div", "sub", subtitle));
    const meta = add(card, el("div", "meta"));
    if (isHomebrew(r)) add(meta, el("span", "chip hb", `Homebrew (${homebrewFormat(r)})`));
    const doc = r.document_name || r.document_key;
    if (doc)
      add(
        meta,
        el("span", "chip", cut(doc, 120) + (r.document_name && r.document_key ? ` (${cut(r.document_key, 60)})` : "")),
      );
    const ed = edition(r);
    if (ed) add(meta, el("span", "chip", ed));
  }
  const SKIP = {
    name: 1,
    key: 1,
    kind: 1,
    uri: 1,
    document_key: 1,
    document_name: 1,
    document_source: 1,
    source_url: 1,
    summary: 1,
    similarity_score: 1,
    item_key: 1,
  };
  /** A compact row (detail "summary"): its name and every short fact it carries. */
  function summaryCard(root, r) {
    const card = add(root, el("section", "card"));
    header(card, r, r.kind ? cap(String(r.kind).replace(/_/g, " ")) : null);
    Object.keys(r).forEach((k) => {
      if (!SKIP[k]) line(card, cap(k.replace(/_/g, " ")), r[k]);
    });
    if (str(r.summary)) add(card, el("p", "line", r.summary));
    return card;
  }
  function show(result) {
    const root = document.getElementById("root");
    root.textContent = "";
    const sc = result?.structuredContent;
    if (!result || result.isError || !sc || typeof sc !== "object") {
      const text =
        result && Array.isArray(result.content)
          ? result.content
              .filter((c) => c && c.type === "text")
              .map((c) => c.text)
              .join("\n")
          : "";
      add(root, el("div", "card err", text || "No structured answer to show."));
      reportSize();
      return;
    }
    if (api.renderAnswer) {
      try {
        api.renderAnswer(root, sc);
      } catch (_e) {
        add(root, el("div", "card err", "This answer could not be drawn as a card."));
      }
      reportSize();
      return;
    }
    const rows = Array.isArray(sc.results) ? sc.results : [];
    if (!rows.length) add(root, el("div", "card", sc.message || "No results."));
    rows.slice(0, 25).forEach((r) => {
      if (r && typeof r === "object") {
        try {
          api.render(root, r, sc);
        } catch (_e) {
          summaryCard(root, r);
        }
      }
    });
    if (rows.length > 25 || sc.has_more)
      add(root, el("p", "note", `Showing ${Math.min(rows.length, 25)} of ${sc.total || rows.length} results.`));
    if (sc.detail !== "full" && rows.length)
      add(root, el("p", "note", 'Compact rows: ask with detail "full" for whole entries.'));
    reportSize();
  }
  // ---- the MCP Apps bridge (postMessage, JSON-RPC 2.0) ----
  let nextId = 1,
    pending = {};
  function post(msg) {
    if (window.parent && window.parent !== window) window.parent.postMessage(msg, "*");
  }
  function theme(ctx) {
    if (ctx && (ctx.theme === "light" || ctx.theme === "dark"))
      document.documentElement.setAttribute("data-theme", ctx.theme);
  }
  function reportSize() {
    post({
      jsonrpc: "2.0",
      method: "ui/notifications/size-changed",
      params: { height: Math.ceil(document.documentElement.scrollHeight) },
    });
  }
  window.addEventListener("message", (ev) => {
    if (ev.source !== window.parent) return;
    const m = ev.data;
    if (m?.jsonrpc !== "2.0") return;
    if (!m.method && m.id !== undefined && pending[m.id]) {
      const done = pending[m.id];
      delete pending[m.id];
      done(m.result || null);
      return;
    }
    if (m.method === "ui/notifications/tool-result") show(m.params);
    else if (m.method === "ui/notifications/host-context-changed") theme(m.params);
    else if (m.id !== undefined && (m.method === "ui/resource-teardown" || m.method === "ping"))
      post({ jsonrpc: "2.0", id: m.id, result: {} });
  });
  function start() {
    const id = nextId++;
    pending[id] = (res) => {
      theme(res?.hostContext);
      post({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
    };
    post({
      jsonrpc: "2.0",
      id: id,
      method: "ui/initialize",
      params: {
        appInfo: { name: "lorekeeper-card", version: "1" },
        appCapabilities: {},
        protocolVersion: "2026-01-26",
      },
    });
  }
  const api = {
    el: el,
    add: add,
    str: str,
    fmt: fmt,
    cap: cap,
    signed: signed,
    line: line,
    prose: prose,
    header: header,
    summaryCard: summaryCard,
    show: show,
    start: start,
    render: summaryCard,
    renderAnswer: null,
    isHomebrew: isHomebrew,
    cut: cut,
  };
  return api;
})();
