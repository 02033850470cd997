// What a person types into an address form, put in the interface's canonical form before the
// API's rules see it: a phone as `+1` and 10 digits, a postal code as `A1A 1A1`. Only the pages
// call these; the HTTP API and the tools keep the strict formats (a program gets a 400). What
// cannot be read as a Canadian number or code is given back trimmed, for the rules to refuse
// with their own message. Pure: no node: imports.

/** `+1 416 555 0123`, `514-555-0199`, `(514) 555-0199`, `1.514.555.0199` → `+15145550199`. */
export function canonicalPhone(input: string): string {
  const typed = input.trim();
  // Only the characters people put between digits; a letter or anything else is left to refuse.
  if (!/^\+?[\d\s().-]+$/.test(typed)) return typed;
  const digits = typed.replace(/\D/g, '');
  if (digits.length === 10 && !typed.startsWith('+')) return `+1${digits}`;
  if (digits.length === 11 && digits.startsWith('1')) return `+${digits}`;
  return typed;
}

/** `h3a 1t5`, `H3A1T5`, `h3a-1t5` → `H3A 1T5`. */
export function canonicalPostalCode(input: string): string {
  const typed = input.trim();
  const compact = typed.replace(/[\s-]/g, '').toUpperCase();
  return /^[A-Z]\d[A-Z]\d[A-Z]\d$/.test(compact) ? `${compact.slice(0, 3)} ${compact.slice(3)}` : typed;
}

/** A canonical phone as a person reads it: `+15145550199` → `+1 514 555 0199`. */
export function phoneText(phone: string): string {
  const m = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(phone);
  return m ? `+1 ${m[1]} ${m[2]} ${m[3]}` : phone;
}
