/**
 * `lorekeeper import <file.orcbrew | file.json | folder ...>`:
 * import OrcBrew and 5etools homebrew into the local store.
 */
import { existsSync } from "node:fs";
import { dbPath } from "../../config.ts";
import { embedAfterIngest } from "../../ingest/after-ingest.ts";
import { type FileReport, type ImportReport, importExitCode } from "../../ingest/import.ts";
import { importHomebrewFiles } from "../../ingest/import-5etools.ts";
import { checkpoint, openStore } from "../../store/db.ts";
import { parse } from "../args.ts";
import { importFormat } from "../../ingest/import-format.ts";
import { LoreKeeperError } from "../../errors.ts";
import { runPack } from "./sync-pack.ts";
import { type Command, UsageError } from "../command.ts";
import { Progress, printJson, table } from "../progress.ts";
import { safeText } from "../../text/sanitize.ts";

const HELP =
  `Usage: lorekeeper import <file.orcbrew | file.json | folder> [more...] [--dry-run] [--force] ` +
  `[--no-embed] [--json] [--db-path PATH]

Two homebrew formats (docs/homebrew.md), told apart by extension (else by content); a folder stands
for every .orcbrew and .json file under it.

5etools homebrew JSON (.json): each source of the file's _meta.sources becomes a document with
document_source "5etools" and document_key "5etools-<source id slug>". Inline tags ({@spell …},
{@hit 5}, …) become plain text; _copy records resolve against the same file.

Import homebrew from OrcBrew files (exported by OrcPub / Dungeon Master's Vault). Each pack becomes
a document with document_source "orcbrew" and document_key "orcbrew-<pack name slug>"; filter any
tool with documents=["orcbrew-<slug>"]. A file holding one plugin is named after its items'
:option-pack (the file name when they have none); an
"Export All" file ({"Pack name" {...}}) gives one document per pack.

Each file is imported atomically: all of its packs or nothing. Importing a pack again replaces what
it held before. Content types LoreKeeper has no kind for (invocations, boons, selections,
encounters) and disabled items are left out with a note; unusable items are skipped, with the
reason and the line in the file. Only regular files are read, up to LOREKEEPER_IMPORT_MAX_MB
megabytes each (default 64).

An imported document of either format is removed with \`lorekeeper documents remove <document_key>\`.

A content pack (lorekeeper-content.db.gz, or a LoreKeeper store file) given alone is loaded as
\`lorekeeper sync --pack FILE\` loads it (see \`lorekeeper sync --help\`). The name and the content
decide together: a file named .orcbrew is read as OrcBrew, and one that holds a content pack
is refused.

Options:
  --dry-run    show what would be imported and skipped, per pack and type; write nothing
  --force      also import items whose name is that of an API entity of the same kind
               (by default OrcBrew content never shadows Open5e / D&D 5e API content)
  --no-embed   skip computing embeddings for semantic search
  --json       print the report as JSON on stdout
  --db-path P  the store (default $XDG_DATA_HOME/lorekeeper/lorekeeper.db)

Exit codes: 0 everything imported (types LoreKeeper does not model, such as encounters, and
disabled items are listed as notes), 1 a file could not be imported, 2 some entities were skipped.`;

/** The kinds a type's records became: "magic_item 3, weapon 2" when one 5etools list gave several. */
function kindsText(t: FileReport["packs"][number]["types"][number]): string {
  const counted = "kinds" in t && t.kinds && typeof t.kinds === "object" ? (t.kinds as Record<string, number>) : {};
  const kinds = Object.entries(counted);
  if (kinds.length < 2) return t.kind ?? "(none)";
  return kinds
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
}

function printFile(r: FileReport, out: string[]): void {
  const verb = r.dry_run ? "would import" : "imported";
  if (!r.ok) {
    out.push(`${r.file}: FAILED — ${r.error?.message ?? "unknown error"}`, `  Nothing from this file was imported.`);
  } else {
    const unit = r.format === "5etools" ? "source" : "pack";
    out.push(
      `${r.file}: ${verb} ${r.imported} entities from ${r.packs.length} ${unit}${r.packs.length === 1 ? "" : "s"}` +
        `${r.format ? ` (${r.format})` : ""}, ${r.skipped} skipped`,
    );
    const rows: Array<Array<string | number>> = [];
    for (const p of r.packs) {
      if (p.types.length === 0) rows.push([p.name, p.document_key, "(empty)", "-", 0, 0, 0]);
      p.types.forEach((t, i) => {
        // Records stored inside other entities (5etools class features, item types…) say where they went.
        const folded = "folded" in t && typeof t.folded === "number" && t.folded > 0 ? t.folded : 0;
        rows.push([
          i === 0 ? p.name : "",
          i === 0 ? p.document_key : "",
          t.type,
          folded ? "(folded in)" : kindsText(t),
          t.found,
          t.imported + folded,
          t.skipped,
        ]);
      });
    }
    const headers = ["pack", "document key", "type", "kind", "found", r.dry_run ? "to import" : "imported", "skipped"];
    if (rows.length)
      out.push(
        ...table(headers, rows, new Set([4, 5, 6]))
          .split("\n")
          .map((l) => `  ${l}`),
      );
    for (const p of r.packs) {
      if (r.dry_run && p.existing)
        out.push(`  ${p.name}: would replace the ${p.existing} entities imported earlier from this pack`);
      // Something was there before: the pack replaced an earlier import.
      if (!r.dry_run && p.store && p.store.updated + p.store.unchanged + p.store.deleted > 0) {
        out.push(
          `  ${p.name}: replaced earlier import (${p.store.inserted} new, ${p.store.updated} changed, ` +
            `${p.store.unchanged} unchanged, ${p.store.deleted} removed)`,
        );
      }
    }
  }
  const all = r.packs.flatMap((p) => p.skipped.map((s) => ({ p, s })));
  const line = ({ p, s }: (typeof all)[number]) => {
    const at = s.line > 0 ? ` (line ${s.line}, column ${s.column})` : "";
    return `${p.name} / ${s.type}${s.key ? ` ${s.key}` : ""}${at}: ${s.reason}`;
  };
  const skips = all.filter((x) => !x.s.by_design);
  if (skips.length) {
    out.push("  Skipped:");
    for (const x of skips) out.push(`    ${line(x)}`);
  }
  const byDesign = all.filter((x) => x.s.by_design).map((x) => `not imported: ${line(x)}`);
  const warnings = [...r.warnings, ...r.packs.flatMap((p) => p.warnings.map((w) => `${p.name}: ${w}`)), ...byDesign];
  if (warnings.length) {
    out.push("  Notes:");
    for (const w of warnings) out.push(`    ${w}`);
  }
}

function summary(rep: ImportReport): string {
  const packs = rep.files.reduce((n, f) => n + (f.ok ? f.packs.length : 0), 0);
  const head = rep.dry_run ? "DRY RUN (nothing written)" : rep.failed ? "FAILED" : rep.skipped ? "PARTIAL" : "OK";
  return (
    `${head}: ${rep.dry_run ? "would import" : "imported"} ${rep.imported} entities from ${packs} pack` +
    `${packs === 1 ? "" : "s"} in ${rep.files.length - rep.failed} file` +
    `${rep.files.length - rep.failed === 1 ? "" : "s"}; ${rep.skipped} skipped` +
    `${rep.not_imported ? ` (${rep.not_imported} more left out by design, see Notes)` : ""}; ${rep.failed} file` +
    `${rep.failed === 1 ? "" : "s"} failed.`
  );
}

export const importCommand: Command = {
  name: "import",
  summary: "import homebrew: OrcBrew (.orcbrew) packs and 5etools (.json) files",
  help: HELP,
  async run(argv, ctx) {
    const { values, positionals } = parse(
      argv,
      {
        "dry-run": { type: "boolean" },
        force: { type: "boolean" },
        "no-embed": { type: "boolean" },
        json: { type: "boolean" },
      },
      true,
    );
    if (positionals.length === 0)
      throw new UsageError("give at least one .orcbrew or 5etools .json file (or a folder) to import");
    // Name and content decide together; a file whose name and content disagree is refused, unread.
    const decided = positionals.map((f) => ({ f, d: importFormat(f) }));
    for (const { d } of decided) if ("refused" in d) throw new LoreKeeperError("orcbrew", d.refused, d.hint);
    // A content pack (lorekeeper-content.db.gz or a store file) loads like `sync --pack`.
    const packs = decided.filter(({ d }) => "format" in d && d.format === "pack").map(({ f }) => f);
    if (packs.length > 0) {
      if (positionals.length > 1)
        throw new UsageError(`import a content pack (${packs[0]}) on its own, not together with other files`);
      if (values["dry-run"] || values.force)
        throw new UsageError("--dry-run and --force are for .orcbrew files, not content packs");
      return runPack(
        packs[0]!,
        { dbPath: values["db-path"], withVectors: true, embed: !values["no-embed"], json: values.json },
        ctx,
      );
    }
    const dry = values["dry-run"] ?? false;
    const path = dbPath(values["db-path"]);
    // A dry run reads the store only to find API name clashes and earlier imports; it never creates one.
    const store = !dry || existsSync(path) ? openStore({ path, readonly: dry }) : null;
    const progress = new Progress(ctx.config.ci, values.json === true && !process.stderr.isTTY);
    const started = new Map<string, number>();
    try {
      const report = importHomebrewFiles(store?.db ?? null, positionals, {
        dryRun: dry,
        force: values.force ?? false,
        maxFileBytes: ctx.config.importMaxBytes,
        onEvent: (e) => {
          if (e.type === "file-start") {
            started.set(e.file, Date.now());
            if (e.bytes > 256 * 1024) progress.line(`Reading ${e.file} (${(e.bytes / 1024 / 1024).toFixed(1)} MB)…`);
          } else if (e.type === "parsed") {
            if (e.items > 200) progress.line(`${e.file}: ${e.packs} packs, ${e.items} items read in ${e.ms} ms`);
          } else if (e.type === "progress") {
            const startedAt = started.get(e.file) ?? Date.now();
            if (e.total > 200)
              progress.update({ label: `${e.file} ${e.pack}`, done: e.done, total: e.total, startedAt });
          } else if (!e.report.ok) {
            progress.line(`${e.report.file}: ${e.report.error?.message ?? "failed"}`);
          }
        },
      });
      const embed =
        dry || values["no-embed"] || report.imported === 0 || !store
          ? undefined
          : await embedAfterIngest(
              store,
              { embedder: ctx.embedder(), config: ctx.config },
              (m) => progress.line(m),
              "import",
            );
      if (values.json) {
        printJson({ ...report, exit_code: importExitCode(report), embeddings: embed ?? null });
      } else {
        const out: string[] = report.warnings.map((w) => `Note: ${w}`);
        for (const f of report.files) {
          printFile(f, out);
          out.push("");
        }
        out.push(`${summary(report)}${embed ? ` ${embed.summary}` : ""}`);
        // Pack names, keys and reasons come from the file: no control character reaches the terminal.
        process.stdout.write(`${safeText(out.join("\n"))}\n`);
      }
      return importExitCode(report);
    } finally {
      if (store) checkpoint(store);
      store?.close();
    }
  },
};
