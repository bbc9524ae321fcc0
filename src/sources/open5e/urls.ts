/** Open5e's URL layout (v1 and v2 alike), written once for the client and the normalizers' `source_url`. */
export type Open5eVersion = "v1" | "v2";

export function open5eUrl(baseUrl: string, version: Open5eVersion, endpoint?: string, key?: string): string {
  let url = `${baseUrl}/${version}/`;
  if (endpoint !== undefined) url += `${encodeURIComponent(endpoint)}/`;
  if (key !== undefined) url += `${encodeURIComponent(key)}/`;
  return url;
}
