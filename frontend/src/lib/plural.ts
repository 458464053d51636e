/**
 * A count with its noun: "1 line", "2 lines", "0 entries" (plural defaults
 * to singular + "s").
 */
export function countOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
