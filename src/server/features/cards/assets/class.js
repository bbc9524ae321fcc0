/**
 * The class card (browser, inlined): a class_progression answer as the class table —
 * level, proficiency bonus, features, the class's own columns and the spell slots by level.
 */
(() => {
  const FIXED = { level: 1, proficiency_bonus: 1, features: 1, spell_slots: 1 };
  function ordinal(n) {
    return n + (n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th");
  }
  LK.renderAnswer = (root, a) => {
    const c = a.class && typeof a.class === "object" ? a.class : {};
    const card = LK.add(root, LK.el("section", "card"));
    LK.header(card, c, "Class progression");
    if (Array.isArray(a.other_documents) && a.other_documents.length) LK.line(card, "Also in", a.other_documents);
    const levels = Array.isArray(a.levels) ? a.levels.filter((l) => l && typeof l === "object") : [];
    let extra = [],
      slots = 0;
    levels.forEach((l) => {
      Object.keys(l).forEach((k) => {
        if (!FIXED[k] && extra.indexOf(k) < 0) extra.push(k);
      });
      if (Array.isArray(l.spell_slots)) slots = Math.max(slots, l.spell_slots.length);
    });
    const t = LK.add(LK.add(card, LK.el("div", "scroll")), LK.el("table"));
    const head = LK.add(t, LK.el("tr"));
    const cols = ["Level", "Prof.", "Features"].concat(extra.map((k) => LK.cap(k.replace(/_/g, " "))));
    for (let i = 1; i <= slots; i++) cols.push(ordinal(i));
    cols.forEach((h) => {
      LK.add(head, LK.el("th", null, h));
    });
    levels.forEach((l) => {
      const tr = LK.add(t, LK.el("tr"));
      LK.add(tr, LK.el("td", null, LK.fmt(l.level) || ""));
      LK.add(tr, LK.el("td", null, LK.fmt(l.proficiency_bonus) || ""));
      LK.add(tr, LK.el("td", null, LK.fmt(l.features) || "—"));
      extra.forEach((k) => {
        LK.add(tr, LK.el("td", null, LK.fmt(l[k]) || "—"));
      });
      for (let s = 0; s < slots; s++)
        LK.add(
          tr,
          LK.el(
            "td",
            null,
            Array.isArray(l.spell_slots) && typeof l.spell_slots[s] === "number" ? String(l.spell_slots[s]) : "—",
          ),
        );
    });
    if (LK.str(a.message)) LK.add(card, LK.el("p", "note", a.message));
  };
})();
