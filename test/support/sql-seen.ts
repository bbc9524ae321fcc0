/** The SQL texts a database prepares (`db.query`) from now until `stop()`: which statements a call ran. */
import type { Database } from "bun:sqlite";

export function recordQueries(db: Database): { seen: string[]; stop: () => void } {
  const seen: string[] = [];
  const query = db.query.bind(db);
  db.query = ((sql: string) => {
    seen.push(sql);
    return query(sql);
  }) as typeof db.query;
  return { seen, stop: () => void (db.query = query) };
}
