/**
 * The one interface every content source implements (one folder per source; the list is
 * `sources/index.ts`). Sync, the CLI and the store's source order call only this interface, so a new
 * source is a new folder plus one line in that list (and its id in `DocumentSource`); see
 * docs/contributing.md.
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
  /** Short name in tables ("v2", "api"); `lorekeeper documents` spells it out under its table. */
  readonly short: string;
  /** The content types a sync fetches; empty for sources read from files (OrcBrew). */
  readonly contentTypes: readonly ContentType[];
  /** Whether `lorekeeper sync` without --source fetches `t` (false for every type of an opt-in source). */
  byDefault(t: ContentType): boolean;
  /** Connect for one sync run; absent for sources read from files (they come in through `lorekeeper import`). */
  open?(run: SourceRun): SourceSession;
  /** The API a sync reaches (set exactly when `open` is): sync's and doctor's messages name it and probe it. */
  readonly upstream?: UpstreamApi;
  /** Homebrew read from the user's files: the format's name as lists, cards and reports show it ("OrcBrew"). */
  readonly homebrew?: HomebrewFormat;
}

interface HomebrewFormat {
  /** Short name of the file format ("OrcBrew", "5etools"). */
  readonly format: string;
  /** What `lorekeeper documents` says the source stands for ("imported OrcBrew packs"). */
  readonly legend: string;
  /** The file name ending `lorekeeper import` reads it from (".orcbrew"): messages say what to import. */
  readonly extension: string;
}

/** The `Config` fields that hold a base URL. */
export type BaseUrlSetting = { [K in keyof Config]: K extends `${string}BaseUrl` ? K : never }[keyof Config];

export interface UpstreamApi {
  /** The setting holding the base URL (also what tests point at their fake upstream). */
  readonly baseUrlSetting: BaseUrlSetting;
  /** The variable that sets it ("LOREKEEPER_OPEN5E_BASE_URL"). */
  readonly envVar: string;
  /** What `lorekeeper doctor` requests to see the API answer (a cheap index page), on `baseUrl`. */
  probeUrl(baseUrl: string): string;
}
