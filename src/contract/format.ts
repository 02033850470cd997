// Formats shared by everything that shows text to a person (pages, emails): money as dollars from
// integer cents, HTML escaping, and what an origin is (configuration). Pure: no node: imports.

/** Integer cents as dollars, e.g. 123456 -> $1,234.56, -50 -> -$0.50 (integer math only). */
export function formatCents(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new Error(`an amount must be whole cents, got ${cents}`);
  const abs = Math.abs(cents);
  const dollars = String(Math.trunc(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const rest = String(abs % 100).padStart(2, '0');
  return `${cents < 0 ? '-' : ''}$${dollars}.${rest}`;
}

/** Whether `v` is an http(s) origin, a trailing slash allowed (https://example.ca, not a path). */
export function isOrigin(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === v.replace(/\/$/, '');
  } catch {
    return false;
  }
}
