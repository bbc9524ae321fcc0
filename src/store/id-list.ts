/**
 * Id lists bound as one value. `e.id ${ID_IN}` with `idList(ids)` bound: one statement text for
 * any number of ids, so bun:sqlite's prepared-statement cache keeps it (an `IN (?,?,…)` per list
 * length was a new statement, prepared again, in most calls). SQLite reads the ids through
 * json_each and looks each one up by rowid or index as it would for a literal list.
 */
export const ID_IN = "IN (SELECT value FROM json_each(?))";

/** The bound value of ID_IN. */
export function idList(ids: readonly number[]): string {
  return JSON.stringify(ids);
}
