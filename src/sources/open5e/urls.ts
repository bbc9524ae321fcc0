/**
 * Open5e's URL layout (v1 and v2 alike), written once: `<base>/<version>/` (the endpoint index),
 * `<base>/<version>/<endpoint>/` (a list, with an optional sorted query), and
 * `<base>/<version>/<endpoint>/<key>/` (a record). The client requests these and the normalizers
 * cite them as `source_url`.
 */
export type Open5eVersion = "v1" | "v2";

export function open5eUrl(baseUrl: string, version: Open5eVersion, endpoint?: string, key?: string): string {
  let url = `${baseUrl}/${version}/`;
  if (endpoint !== undefined) url += `${encodeURIComponent(endpoint)}/`;
  if (key !== undefined) url += `${encodeURIComponent(key)}/`;
  return url;
}
