/** Upstream text slips fixed at ingest (src/entities/corrections/text-fixes.json via applyCorrections). */
import { describe, expect, test } from "bun:test";
import { applyCorrections, TEXT_FIXES } from "../../src/entities/corrections/apply.ts";
import { ruleEntity } from "../../src/entities/normalize/canonical/reference.ts";
import { answeringPassage } from "../../src/tools/answer/rule-passage.ts";

// Open5e v2's SRD 5.1 "Falling" as it is served (its spaces lost where the SRD's lines break).
const SERVED =
  "A fall from a great height is one of the most common hazards facing anadventurer. At the end of a fall, " +
  "a creature takes 1d6 bludgeoningdamage for every 10 feet it fell, to a maximum of 20d6. The creaturelands " +
  "prone, unless it avoids taking damage from the fall.";

function falling(source: "open5e_v2" | "open5e_v1", desc: string) {
  const b = {
    key: "srd_environment_falling",
    name: "Falling",
    doc: { key: "srd-2014", name: "SRD 5.1" },
    url: "http://127.0.0.1/x",
  };
  return ruleEntity(source, b, { desc, section: "Environment", section_key: null, order: 1 });
}

describe("text fixes", () => {
  test("Falling reads right in its field and its search text, and the passage quotes the damage", () => {
    const e = applyCorrections(falling("open5e_v2", SERVED));
    const desc = String(e.data.desc);
    expect(desc).toContain("1d6 bludgeoning damage for every 10 feet");
    expect(desc).toContain("an adventurer");
    expect(desc).toContain("The creature lands prone");
    expect(e.text).toContain("bludgeoning damage");
    expect(e.text).not.toContain("bludgeoningdamage");
    expect(e.data.upstream_notes).toBeUndefined();
    expect(answeringPassage(desc, "how much damage does falling do")).toStartWith(
      "At the end of a fall, a creature takes 1d6",
    );
  });

  test("another source's record, or one upstream already fixed, is left as it is", () => {
    const other = falling("open5e_v1", SERVED);
    expect(applyCorrections(other)).toBe(other);
    const fixed = falling("open5e_v2", "At the end of a fall, a creature takes 1d6 bludgeoning damage.");
    expect(applyCorrections(fixed)).toBe(fixed);
  });

  test("every fix names a record and pairs of non-empty, different strings", () => {
    expect(TEXT_FIXES.length).toBeGreaterThan(0);
    for (const f of TEXT_FIXES) {
      expect(f.key.length * f.field.length * f.why.length).toBeGreaterThan(0);
      for (const pair of f.replace) {
        expect(pair.length).toBe(2);
        expect(pair[0]!.length).toBeGreaterThan(0);
        expect(pair[0]).not.toBe(pair[1]);
      }
    }
  });
});
