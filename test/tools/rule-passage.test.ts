/** The passage of a rule that answers a question (src/tools/answer/rule-passage.ts). */
import { expect, test } from "bun:test";
import { answeringPassage, PASSAGE_CHARS, sentences } from "../../src/tools/answer/rule-passage.ts";

// Paraphrased in the shape of a long SRD chapter: headings, paragraphs, a table.
const ORDER_OF_COMBAT = [
  "## The Order of Combat",
  "A typical combat encounter is a clash between two sides, a flurry of weapon swings and spells. " +
    "The game organizes it into rounds and turns.",
  "### Surprise",
  "The GM decides who might be surprised. If neither side tries to be stealthy, they notice each other. " +
    "Any creature that doesn't notice a threat is surprised at the start of the encounter. " +
    "If you're surprised, you can't move or take an action on your first turn of the combat.",
  "### Initiative",
  "Initiative determines the order of turns during combat. Every participant makes a Dexterity check.",
  "| Level | Bonus |",
  "|---|---|",
  "| 1 | +2 |",
].join("\n");

test("sentences: headings, table rows and paragraphs become separate plain sentences", () => {
  const ss = sentences(ORDER_OF_COMBAT);
  expect(ss).toContain("Surprise");
  expect(ss).toContain("Initiative determines the order of turns during combat.");
  expect(ss.some((s) => s.includes("|") || s.includes("#"))).toBe(false);
});

test("the sentence that holds the question's rarer words wins, with the next when it fits", () => {
  const p = answeringPassage(ORDER_OF_COMBAT, "surprise at the start of combat")!;
  expect(p).toStartWith("Any creature that doesn't notice a threat is surprised at the start of the encounter.");
  expect(p).toContain("If you're surprised, you can't move");
  expect(p.length).toBeLessThanOrEqual(PASSAGE_CHARS);
  const first = answeringPassage(ORDER_OF_COMBAT, "who goes first? initiative order");
  expect(first).toStartWith("Initiative determines the order of turns");
});

test("at most PASSAGE_CHARS characters, cut at a word; nothing when no word is shared", () => {
  const waiting = "When you take a reaction you wait a long while before the next one comes ";
  const long = `Reactions are special. ${waiting.repeat(8)}.`;
  const p = answeringPassage(long, "how many reactions per round")!;
  expect(p.length).toBeLessThanOrEqual(PASSAGE_CHARS);
  expect(p.endsWith("…") || p.endsWith(".")).toBe(true);
  expect(answeringPassage(ORDER_OF_COMBAT, "owlbear feathers")).toBeUndefined();
  expect(answeringPassage(ORDER_OF_COMBAT, "the of and")).toBeUndefined();
});

test("a question of amount (how many, how long …) prefers the sentence that states one", () => {
  const reactions = [
    "Certain special abilities allow you to take a special action called a reaction.",
    "A reaction is an instant response to a trigger of some kind.",
    "When you take a reaction, you can't take another one until the start of your next turn.",
    "If the reaction interrupts another creature's turn, that creature can continue its turn right after the reaction.",
  ].join(" ");
  const p = answeringPassage(reactions, "how many reactions can a creature take each round");
  expect(p).toStartWith("When you take a reaction, you can't take another one");
});
