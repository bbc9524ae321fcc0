/**
 * The creature card (browser, inlined): the classic stat block from one search_creature row with detail
 * "full"; a compact row (no ability scores) gets the runtime's summary card.
 */
(() => {
  const A = ["strength", "dexterity", "constitution", "intelligence", "wisdom", "charisma"];
  function mod(score) {
    return Math.floor((score - 10) / 2);
  }
  function speed(s) {
    if (!s || typeof s !== "object") return LK.fmt(s);
    const out = [];
    Object.keys(s).forEach((k) => {
      const v = s[k];
      if (typeof v === "number") out.push(`${(k === "walk" ? "" : `${k} `) + v} ft.`);
      else if (v === true) out.push(k);
      else if (LK.str(v)) out.push(k === "walk" ? v : `${k} ${v}`);
    });
    return out.length ? out.join(", ") : null;
  }
  function bonuses(o) {
    if (!o || typeof o !== "object" || Array.isArray(o)) return LK.fmt(o);
    const out = [];
    Object.keys(o).forEach((k) => {
      if (typeof o[k] === "number") out.push(`${LK.cap(k.replace(/_/g, " "))} ${LK.signed(o[k])}`);
    });
    return out.length ? out.join(", ") : null;
  }
  function entries(card, title, list, intro) {
    if (!Array.isArray(list) || (!list.length && !LK.str(intro))) return;
    LK.add(card, LK.el("h3", null, title));
    if (LK.str(intro)) LK.prose(card, intro);
    list.forEach((a) => {
      if (!a || typeof a !== "object") return;
      const box = LK.add(card, LK.el("div", "entry"));
      let label = String(a.name || "");
      const extra = [];
      if (LK.str(a.usage)) extra.push(a.usage);
      if (typeof a.cost === "number" && a.cost > 1) extra.push(`Costs ${a.cost} Actions`);
      if (extra.length) label += ` (${extra.join("; ")})`;
      LK.prose(box, a.desc || "", `${label}.`);
    });
  }
  LK.render = (root, r) => {
    if (!r.ability_scores || typeof r.ability_scores !== "object") return LK.summaryCard(root, r);
    const card = LK.add(root, LK.el("section", "card"));
    let type = [LK.cap(LK.fmt(r.size) || ""), String(LK.fmt(r.type || r.creature_type) || "").toLowerCase()]
      .join(" ")
      .trim();
    if (LK.str(r.subtype)) type += ` (${r.subtype})`;
    if (LK.str(r.alignment)) type += `, ${r.alignment}`;
    LK.header(card, r, type || null);
    LK.add(card, LK.el("hr"));
    LK.line(
      card,
      "Armor Class",
      r.armor_class !== undefined
        ? String(r.armor_class) + (LK.str(r.armor_detail) ? ` (${r.armor_detail})` : "")
        : null,
    );
    LK.line(
      card,
      "Hit Points",
      r.hit_points !== undefined ? String(r.hit_points) + (LK.str(r.hit_dice) ? ` (${r.hit_dice})` : "") : null,
    );
    LK.line(card, "Speed", speed(r.speed));
    LK.add(card, LK.el("hr"));
    const grid = LK.add(card, LK.el("div", "abil"));
    A.forEach((a) => {
      const s = r.ability_scores[a];
      const cell = LK.add(grid, LK.el("div"));
      LK.add(cell, LK.el("b", null, a.slice(0, 3).toUpperCase()));
      LK.add(cell, LK.el("span", null, typeof s === "number" ? `${s} (${LK.signed(mod(s))})` : "—"));
    });
    LK.add(card, LK.el("hr"));
    LK.line(card, "Saving Throws", bonuses(r.saving_throws));
    LK.line(card, "Skills", bonuses(r.skills));
    LK.line(card, "Damage Vulnerabilities", r.damage_vulnerabilities);
    LK.line(card, "Damage Resistances", r.damage_resistances);
    LK.line(card, "Damage Immunities", r.damage_immunities);
    LK.line(card, "Condition Immunities", r.condition_immunities);
    LK.line(
      card,
      "Senses",
      r.senses || (typeof r.passive_perception === "number" ? `passive Perception ${r.passive_perception}` : null),
    );
    LK.line(card, "Languages", r.languages || "—");
    const cr = r.cr_display !== undefined && r.cr_display !== null ? r.cr_display : r.cr;
    if (cr !== undefined && cr !== null)
      LK.line(
        card,
        "Challenge",
        String(cr) + (typeof r.xp === "number" ? ` (${r.xp.toLocaleString("en-US")} XP)` : ""),
      );
    LK.line(
      card,
      "Proficiency Bonus",
      typeof r.proficiency_bonus === "number" ? LK.signed(r.proficiency_bonus) : r.proficiency_bonus,
    );
    if (Array.isArray(r.traits) && r.traits.length) {
      LK.add(card, LK.el("hr"));
      entries(card, "Traits", r.traits);
    }
    entries(card, "Actions", r.actions);
    entries(card, "Bonus Actions", r.bonus_actions);
    entries(card, "Reactions", r.reactions);
    entries(card, "Legendary Actions", r.legendary_actions, r.legendary_desc);
    entries(card, "Lair Actions", r.lair_actions);
    if (LK.str(r.desc)) {
      const d = LK.add(card, LK.el("details"));
      LK.add(d, LK.el("summary", null, "Description"));
      LK.prose(d, r.desc);
    }
    return card;
  };
})();
