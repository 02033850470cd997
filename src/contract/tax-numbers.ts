// Canadian sales-tax registration numbers, checked before they are stored and printed on invoices
// (docs/invoices.md "Registration numbers"). Pure functions: the wire schemas (contract/auth.ts)
// and the services share them.
//
// - GST/HST: the 9-digit business number (BN) the Canada Revenue Agency assigns, whose 9th digit
//   is a Luhn (mod 10) check digit, then the program identifier RT and a 4-digit reference
//   ("123456782RT0001"): the BN's GST/HST program account.
// - QST: 10 digits, the 10th a check digit, then TQ and a 4-digit reference ("1234567892TQ0001");
//   or a number of Revenu Québec's specified system for suppliers outside Québec: NR and
//   8 digits ("NR00012345").
// Spaces and hyphens are accepted on input ("123 456 782 RT 0001") and dropped; letters are
// upper-cased. A refusal names what is wrong: the characters, the length, the program identifier,
// the reference or the check digit.
import type { MessageKey, MessageValues } from './i18n.ts';

export type TaxNumberCheck =
  | { ok: true; value: string }
  | { ok: false; key: MessageKey; values?: MessageValues };

/** Longest input looked at: a number with a separator between every character, and then some. */
export const TAX_NUMBER_MAX_INPUT = 40;

/** The input without spaces (any kind) and hyphens, letters upper-cased. */
export const compactTaxNumber = (input: string): string =>
  input.replace(/[\s\u00a0\u202f-]/g, '').toUpperCase();

/** Whether a string of digits passes the Luhn (mod 10) check, its last digit being the check digit. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * The check digit of a QST number's first 9 digits: weights 4 3 2 7 6 5 4 3 2 (2 to 7 from the
 * right, repeating), the sum taken modulo 11, and 11 less that remainder, written mod 10 (a
 * remainder of 0 gives 1, of 1 gives 0). Revenu Québec does not publish it; it is the one the
 * open-source `stdnum` validators use, and it holds for every published number we checked
 * (docs/invoices.md "Registration numbers").
 */
export function qstCheckDigit(first9: string): number {
  const weights = [4, 3, 2, 7, 6, 5, 4, 3, 2];
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (first9.charCodeAt(i) - 48) * (weights[i] as number);
  return (11 - (sum % 11)) % 10;
}

/** A GST/HST registration number, normalized ("123456782RT0001"), or what is wrong with it. */
export function checkGstHstNumber(input: string): TaxNumberCheck {
  const value = compactTaxNumber(input);
  if (!/^[0-9A-Z]*$/.test(value)) return { ok: false, key: 'tax.gstHst.characters' };
  if (value.length !== 15) return { ok: false, key: 'tax.gstHst.length', values: { length: value.length } };
  const bn = value.slice(0, 9);
  const program = value.slice(9, 11);
  const reference = value.slice(11);
  if (!/^\d{9}$/.test(bn) || !/^[A-Z]{2}$/.test(program) || !/^\d{4}$/.test(reference)) {
    return { ok: false, key: 'tax.gstHst.shape' };
  }
  if (program !== 'RT') return { ok: false, key: 'tax.gstHst.programId', values: { program } };
  if (reference === '0000') return { ok: false, key: 'tax.reference', values: { program } };
  if (!luhnValid(bn)) return { ok: false, key: 'tax.gstHst.checkDigit', values: { bn } };
  return { ok: true, value };
}

/** A QST registration number (TQ, or a supplier outside Québec's NR), normalized, or what is wrong. */
export function checkQstNumber(input: string): TaxNumberCheck {
  const value = compactTaxNumber(input);
  if (!/^[0-9A-Z]*$/.test(value)) return { ok: false, key: 'tax.qst.characters' };
  if (value.startsWith('NR')) {
    if (!/^NR\d{8}$/.test(value)) {
      return { ok: false, key: 'tax.qst.nrShape' };
    }
    return { ok: true, value };
  }
  if (value.length !== 16) return { ok: false, key: 'tax.qst.length', values: { length: value.length } };
  const digits = value.slice(0, 10);
  const program = value.slice(10, 12);
  const reference = value.slice(12);
  if (!/^\d{10}$/.test(digits) || !/^[A-Z]{2}$/.test(program) || !/^\d{4}$/.test(reference)) {
    return { ok: false, key: 'tax.qst.shape' };
  }
  if (program !== 'TQ') return { ok: false, key: 'tax.qst.programId', values: { program } };
  if (reference === '0000') return { ok: false, key: 'tax.reference', values: { program } };
  if (qstCheckDigit(digits) !== digits.charCodeAt(9) - 48) {
    return { ok: false, key: 'tax.qst.checkDigit', values: { digits } };
  }
  return { ok: true, value };
}

/** Whether a stored QST number is a specified-system (NR) one: a supplier outside Québec's. */
export const isNonResidentQst = (value: string): boolean => value.startsWith('NR');
