/** The D&D 5e API's URL layout, written once for the client and the normalizers' `source_url`. */
export function dnd5eApiUrl(baseUrl: string, year: string, endpoint?: string, index?: string): string {
  let url = `${baseUrl}/api/${year}`;
  if (endpoint !== undefined) url += `/${encodeURIComponent(endpoint)}`;
  if (index !== undefined) url += `/${encodeURIComponent(index)}`;
  return url;
}
