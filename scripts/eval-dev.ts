/**
 * The outside development set (`../shared/eval/relevance-dev.json`, read by eval-devset.ts):
 * meaning questions in a DM's words, written outside the project. `bun run eval` ranks them beside
 * its own queries and reports them apart (hit within each case's k, MRR); they are never tuned on.
 */
import { join } from "node:path";
import type { EvalQuery } from "./eval-queries.ts";
import type { Summary } from "./eval-metrics.ts";
import { SHARED_DIR } from "./shared-dir.ts";

export const DEV_SET = join(SHARED_DIR, "eval", "relevance-dev.json");

/** Hit within each case's own k, and MRR (0 when no target is in the list). Pure. */
export function devSummary(rs: ReadonlyArray<{ q: EvalQuery; rank: number | null }>): Summary & { hitK: number } {
  const n = rs.length;
  const hitK = n === 0 ? 0 : rs.filter((r) => r.rank !== null && r.rank <= (r.q.k ?? 5)).length / n;
  const share = (k: number) => (n === 0 ? 0 : rs.filter((r) => r.rank !== null && r.rank <= k).length / n);
  const mrr = n === 0 ? 0 : rs.reduce((s, r) => s + (r.rank === null ? 0 : 1 / r.rank), 0) / n;
  return { queries: n, hit1: share(1), hit5: share(5), hit10: share(10), mrr, hitK };
}
