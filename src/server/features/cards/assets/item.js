/**
 * The item card (browser, inlined): one search_equipment row with detail "full" — a magic item (type,
 * rarity, attunement), a weapon (damage, properties, mastery), armor (AC, strength, stealth) or gear;
 * any other short fact the row carries is listed too.
 */
(() => {
  const SHOWN = {
    name: 1,
    key: 1,
    kind: 1,
    uri: 1,
    document_key: 1,
    document_name: 1,
    document_source: 1,
    source_url: 1,
    item_key: 1,
    desc: 1,
    summary: 1,
    similarity_score: 1,
    type: 1,
    rarity: 1,
    requires_attunement: 1,
    attunement_detail: 1,
    category: 1,
    range_type: 1,
    damage_dice: 1,
    damage_type: 1,
    versatile_dice: 1,
    properties: 1,
    range: 1,
    long_range: 1,
    cost: 1,
    cost_gp: 1,
    weight_lb: 1,
    ac_display: 1,
    ac_base: 1,
    ac_add_dex: 1,
    ac_max_dex: 1,
    strength_required: 1,
    stealth_disadvantage: 1,
    mastery: 1,
    other_versions: 1,
    base_item: 1,
    is_improvised: 1,
  };
  function subtitle(r) {
    const k = String(r.kind || "");
    if (k === "magic_item") {
      let s = LK.cap(LK.fmt(r.type) || "Magic item") + (LK.str(r.base_item) ? ` (${r.base_item})` : "");
      if (LK.str(r.rarity)) s += `, ${r.rarity}`;
      if (r.requires_attunement)
        s += ` (requires attunement${LK.str(r.attunement_detail) ? ` ${r.attunement_detail}` : ""})`;
      return s;
    }
    if (k === "weapon") return LK.cap([LK.fmt(r.category), LK.fmt(r.range_type), "weapon"].filter(Boolean).join(" "));
    if (k === "armor") return LK.cap([LK.fmt(r.category), "armor"].filter(Boolean).join(" "));
    return LK.cap(k.replace(/_/g, " "));
  }
  LK.render = (root, r) => {
    if (r.desc === undefined) return LK.summaryCard(root, r);
    const card = LK.add(root, LK.el("section", "card"));
    LK.header(card, r, subtitle(r));
    LK.add(card, LK.el("hr"));
    if (r.ac_display !== undefined || r.ac_base !== undefined)
      LK.line(card, "Armor Class", r.ac_display !== undefined ? r.ac_display : r.ac_base);
    LK.line(card, "Strength", typeof r.strength_required === "number" ? `Str ${r.strength_required}` : null);
    if (r.stealth_disadvantage === true) LK.line(card, "Stealth", "Disadvantage");
    if (LK.str(r.damage_dice))
      LK.line(
        card,
        "Damage",
        r.damage_dice +
          (LK.str(r.damage_type) ? ` ${r.damage_type}` : "") +
          (LK.str(r.versatile_dice) ? ` (versatile ${r.versatile_dice})` : ""),
      );
    if (typeof r.range === "number")
      LK.line(card, "Range", `${r.range + (typeof r.long_range === "number" ? `/${r.long_range}` : "")} ft.`);
    LK.line(card, "Properties", r.properties);
    LK.line(card, "Mastery", r.mastery);
    LK.line(
      card,
      "Cost",
      r.cost !== undefined && r.cost !== null ? r.cost : typeof r.cost_gp === "number" ? `${r.cost_gp} gp` : null,
    );
    LK.line(card, "Weight", typeof r.weight_lb === "number" ? `${r.weight_lb} lb.` : null);
    Object.keys(r).forEach((k) => {
      const v = r[k];
      if (SHOWN[k] || (v !== null && typeof v === "object")) return;
      LK.line(card, LK.cap(k.replace(/_/g, " ")), v);
    });
    LK.add(card, LK.el("hr"));
    LK.prose(card, r.desc);
    return card;
  };
})();
