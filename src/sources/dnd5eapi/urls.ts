/**
 * The D&D 5e API's URL layout, written once: `<base>/api/<year>` (the endpoint index),
 * `<base>/api/<year>/<endpoint>` (a list), `<base>/api/<year>/<endpoint>/<index>` (a record).
 * The client requests these and the normalizers cite them as `source_url`.
 */
export function dnd5eApiUrl(baseUrl: string, year: string, endpoint?: string, index?: string): string {
  let url = `${baseUrl}/api/${year}`;
  if (endpoint !== undefined) url += `/${encodeURIComponent(endpoint)}`;
  if (index !== undefined) url += `/${encodeURIComponent(index)}`;
  return url;
}
