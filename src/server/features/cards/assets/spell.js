/** The spell card (browser, inlined): one search_spell row with detail "full". */
(() => {
  function ordinal(n) {
    return n + (n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th");
  }
  function components(c) {
    if (!c || typeof c !== "object" || Array.isArray(c)) return LK.fmt(c);
    const out = [];
    if (c.verbal) out.push("V");
    if (c.somatic) out.push("S");
    if (c.material) out.push(`M${LK.str(c.material_text) ? ` (${c.material_text})` : ""}`);
    return out.length ? out.join(", ") : null;
  }
  LK.render = (root, r) => {
    if (r.desc === undefined && r.components === undefined) return LK.summaryCard(root, r);
    const card = LK.add(root, LK.el("section", "card"));
    const school = LK.str(r.school) ? String(r.school).toLowerCase() : "";
    let sub =
      typeof r.level === "number"
        ? r.level === 0
          ? LK.cap(`${school} cantrip`).trim()
          : `${ordinal(r.level)}-level ${school}`
        : LK.cap(school);
    const tags = [];
    if (r.ritual === true) tags.push("ritual");
    if (r.concentration === true) tags.push("concentration");
    if (tags.length) sub += ` (${tags.join(", ")})`;
    LK.header(card, r, sub.trim() || null);
    LK.add(card, LK.el("hr"));
    LK.line(card, "Casting Time", r.casting_time);
    LK.line(card, "Range", r.range);
    LK.line(card, "Components", components(r.components));
    LK.line(
      card,
      "Duration",
      r.concentration === true && LK.str(r.duration) && !/concentration/i.test(r.duration)
        ? `Concentration, ${r.duration}`
        : r.duration,
    );
    LK.add(card, LK.el("hr"));
    LK.prose(card, r.desc);
    if (LK.str(r.higher_level))
      LK.prose(card, r.higher_level, /cantrip/i.test(sub) ? "Cantrip Upgrade." : "At Higher Levels.");
    LK.line(card, "Classes", Array.isArray(r.classes) ? r.classes.map(LK.cap) : r.classes);
    LK.line(card, "Saving Throw", r.saving_throw ? LK.cap(String(r.saving_throw)) : null);
    LK.line(card, "Damage", [LK.fmt(r.damage_roll), LK.fmt(r.damage_types)].filter(Boolean).join(" ") || null);
    return card;
  };
})();
