/**
 * The encounter card (browser, inlined): a build_encounter answer — the party, its edition's thresholds
 * as a difficulty bar, the monsters with their XP arithmetic, the steps, and each proposed group.
 */
(() => {
  function num(n) {
    return typeof n === "number" ? n.toLocaleString("en-US") : LK.fmt(n);
  }
  function bar(card, thresholds, difficulty) {
    if (!thresholds || typeof thresholds !== "object") return;
    const b = LK.add(card, LK.el("div", "bar"));
    b.setAttribute("role", "img");
    const names = Object.keys(thresholds);
    b.setAttribute("aria-label", `Difficulty: ${difficulty || `below ${names[0] || ""}`}`);
    names.forEach((k) => {
      const seg = LK.add(b, LK.el("div", k === difficulty ? "on" : null, `${LK.cap(k)} ${num(thresholds[k])}`));
      seg.title = `${LK.cap(k)}: ${num(thresholds[k])} XP`;
    });
  }
  function group(card, g, thresholds, title) {
    if (title) LK.add(card, LK.el("h3", null, title));
    bar(card, thresholds, g.difficulty);
    const monsters = Array.isArray(g.monsters) ? g.monsters : [];
    if (monsters.length) {
      const t = LK.add(LK.add(card, LK.el("div", "scroll")), LK.el("table"));
      const head = LK.add(t, LK.el("tr"));
      ["Monster", "CR", "XP", "Count", "Subtotal", "Document"].forEach((h) => {
        LK.add(head, LK.el("th", null, h));
      });
      monsters.forEach((m) => {
        if (!m || typeof m !== "object") return;
        const tr = LK.add(t, LK.el("tr"));
        LK.add(tr, LK.el("td", null, LK.cut(String(m.name || ""), 300)));
        LK.add(tr, LK.el("td", null, LK.fmt(m.cr) || ""));
        LK.add(tr, LK.el("td", null, num(m.xp) || ""));
        LK.add(tr, LK.el("td", null, num(m.count) || ""));
        LK.add(
          tr,
          LK.el("td", null, typeof m.xp === "number" && typeof m.count === "number" ? num(m.xp * m.count) : ""),
        );
        LK.add(tr, LK.el("td", null, (LK.fmt(m.document_key) || "") + (LK.isHomebrew(m) ? " (homebrew)" : "")));
      });
    }
    LK.line(card, "Total XP", num(g.total_xp));
    if (g.multiplier !== undefined) LK.line(card, "Multiplier", `×${g.multiplier} → adjusted XP ${num(g.adjusted_xp)}`);
    const d = LK.add(card, LK.el("div", "line"));
    LK.add(d, LK.el("b", null, "Difficulty "));
    LK.add(d, LK.el("span", "big", LK.cap(LK.fmt(g.difficulty) || "below the lowest threshold")));
    if (Array.isArray(g.steps) && g.steps.length) {
      const ul = LK.add(card, LK.el("ul"));
      g.steps.forEach((s) => {
        LK.add(ul, LK.el("li", null, LK.fmt(s)));
      });
    }
  }
  LK.renderAnswer = (root, a) => {
    const card = LK.add(root, LK.el("section", "card"));
    LK.add(card, LK.el("h2", null, "Encounter"));
    LK.add(card, LK.el("div", "sub", LK.fmt(a.party) || ""));
    const meta = LK.add(card, LK.el("div", "meta"));
    if (a.edition) LK.add(meta, LK.el("span", "chip", `${LK.fmt(a.edition)} rules`));
    const docs = {};
    const groups = a.rating ? [a.rating] : Array.isArray(a.proposals) ? a.proposals : [];
    groups.forEach((g) => {
      (g && Array.isArray(g.monsters) ? g.monsters : []).forEach((m) => {
        if (m?.document_key) docs[m.document_key] = LK.isHomebrew(m);
      });
    });
    Object.keys(docs).forEach((k) => {
      LK.add(meta, LK.el("span", docs[k] ? "chip hb" : "chip", (docs[k] ? "Homebrew: " : "") + LK.cut(k, 80)));
    });
    if (a.rating) group(card, a.rating, a.thresholds, null);
    else
      groups.forEach((g, i) => {
        group(card, g, a.thresholds, `Group ${i + 1}${g?.shape ? `: ${LK.fmt(g.shape)}` : ""}`);
      });
    if (LK.str(a.message)) LK.add(card, LK.el("p", "note", a.message));
    if (LK.str(a.rule) || Array.isArray(a.sources)) {
      const det = LK.add(card, LK.el("details"));
      LK.add(det, LK.el("summary", null, "Rule and sources"));
      if (LK.str(a.rule)) LK.add(det, LK.el("p", null, a.rule));
      const ul = LK.add(det, LK.el("ul"));
      (a.sources || []).forEach((s) => {
        LK.add(ul, LK.el("li", null, LK.fmt(s)));
      });
    }
  };
})();
