/**
 * The one interface every content source implements (one folder per source: open5e-v2/, open5e-v1/,
 * dnd5eapi/, orcbrew/; the list is `sources/index.ts`). The sync layer iterates `SOURCES` and calls
 * only this interface, so a new API is a new folder plus one line in that list (and its id in
 * `DocumentSource`); see docs/contributing.md.
 *
 * A source owns: its content types (endpoint + related endpoints + kinds + a pure normalizer), how
 * records are fetched, where its document metadata comes from, and its URL layout (written once in
 * its `urls.ts`, used by the client and by the normalizers' `source_url`).
 */
import type { Config } from "../config.ts";
import type { ContentType } from "../entities/normalize/types.ts";
import type { DocumentInfo, DocumentSource } from "../entities/types.ts";
import type { HttpClient } from "./http.ts";

export interface FetchedRecords {
  records: unknown[];
  warnings: string[];
  /** Records the upstream failed to give (counted, named in `warnings`). */
  skipped: number;
  /** Set when the listing itself is known to lack records (it announced more than it carried). */
  incomplete?: string;
}

export type FetchProgress = (records: number, totalRecords: number | null, pages: number) => void;

/** What one sync run lends a source. */
export interface SourceRun {
  http: HttpClient;
  config: Config;
  force: boolean;
  signal?: AbortSignal;
  /** Another source's documents, fetched at most once per run (Open5e v1 borrows v2's names). */
  documentsOf(source: DocumentSource): Promise<DocumentInfo[]>;
}

/** A source opened for one sync run. */
export interface SourceSession {
  /** Upstream base URL without trailing slash: what `source_url`s start with. */
  readonly baseUrl: string;
  /** The source's document metadata (names, licences, publishers). */
  documents(): Promise<DocumentInfo[]>;
  /** Every record of one endpoint (`t.endpoint` or one of `t.related`). Throws UpstreamError. */
  fetch(t: ContentType, endpoint: string, onProgress: FetchProgress): Promise<FetchedRecords>;
  /** Why this server cannot serve `t` at all (e.g. the 2014 API has no species), or null. */
  unavailable?(t: ContentType): Promise<string | null>;
}

export interface Source {
  readonly id: DocumentSource;
  /** Human name for messages ("Open5e v2"). */
  readonly label: string;
  /** The content types a sync fetches; empty for sources read from files (OrcBrew). */
  readonly contentTypes: readonly ContentType[];
  /** Whether `lorekeeper sync` without --source fetches `t` (false for every type of an opt-in source). */
  byDefault(t: ContentType): boolean;
  /** The URL of a list (`endpoint`) or of one record (`endpoint` + `key`) of `t`, on `baseUrl`. */
  url(baseUrl: string, t: ContentType, endpoint?: string, key?: string): string;
  /** Connect for one sync run; absent for sources read from files (they come in through `lorekeeper import`). */
  open?(run: SourceRun): SourceSession;
  /** Homebrew read from the user's files: the format's name as lists, cards and reports show it ("OrcBrew"). */
  readonly homebrew?: HomebrewFormat;
}

export interface HomebrewFormat {
  /** Short name of the file format ("OrcBrew", "5etools"). */
  readonly format: string;
  /** What `lorekeeper documents` says the source stands for ("imported OrcBrew packs"). */
  readonly legend: string;
}
