/**
 * The class card's script (browser, inlined): a class_progression answer as the class table —
 * level, proficiency bonus, features, the class's own columns and the spell slots by level.
 */
export const CLASS_SCRIPT = String.raw`
(function () {
  "use strict";
  var FIXED = { level: 1, proficiency_bonus: 1, features: 1, spell_slots: 1 };
  function ordinal(n) { return n + (n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th"); }
  LK.renderAnswer = function (root, a) {
    var c = a.class && typeof a.class === "object" ? a.class : {};
    var card = LK.add(root, LK.el("section", "card"));
    LK.header(card, c, "Class progression");
    if (Array.isArray(a.other_documents) && a.other_documents.length) LK.line(card, "Also in", a.other_documents);
    var levels = Array.isArray(a.levels) ? a.levels.filter(function (l) { return l && typeof l === "object"; }) : [];
    var extra = [], slots = 0;
    levels.forEach(function (l) {
      Object.keys(l).forEach(function (k) { if (!FIXED[k] && extra.indexOf(k) < 0) extra.push(k); });
      if (Array.isArray(l.spell_slots)) slots = Math.max(slots, l.spell_slots.length);
    });
    var t = LK.add(LK.add(card, LK.el("div", "scroll")), LK.el("table"));
    var head = LK.add(t, LK.el("tr"));
    var cols = ["Level", "Prof.", "Features"].concat(extra.map(function (k) { return LK.cap(k.replace(/_/g, " ")); }));
    for (var i = 1; i <= slots; i++) cols.push(ordinal(i));
    cols.forEach(function (h) { LK.add(head, LK.el("th", null, h)); });
    levels.forEach(function (l) {
      var tr = LK.add(t, LK.el("tr"));
      LK.add(tr, LK.el("td", null, LK.fmt(l.level) || ""));
      LK.add(tr, LK.el("td", null, LK.fmt(l.proficiency_bonus) || ""));
      LK.add(tr, LK.el("td", null, LK.fmt(l.features) || "—"));
      extra.forEach(function (k) { LK.add(tr, LK.el("td", null, LK.fmt(l[k]) || "—")); });
      for (var s = 0; s < slots; s++) LK.add(tr, LK.el("td", null,
          Array.isArray(l.spell_slots) && typeof l.spell_slots[s] === "number" ? String(l.spell_slots[s]) : "—"));
    });
    if (LK.str(a.message)) LK.add(card, LK.el("p", "note", a.message));
  };
})();
`;
