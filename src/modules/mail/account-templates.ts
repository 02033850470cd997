// The account emails: verifying an address and resetting a password. Pure functions from the
// account's name and the link to a subject, a text body and an HTML body. The link carries a
// secret token: it appears in the body only, never in the subject (subjects end up in logs).
import { escapeHtml, greeting, page, type RenderedMail } from './templates.ts';

export interface AccountLinkMailData {
  name: string;
  /** The whole link, token included. */
  url: string;
  /** How long the link works, in words ("48 hours", "30 minutes"). */
  validFor: string;
}

function button(url: string, label: string): string {
  const u = escapeHtml(url);
  return [
    `<p><a href="${u}" style="display:inline-block;background:#1d3b2a;color:#fff;padding:10px 18px;border-radius:6px;text-decoration:none">${escapeHtml(label)}</a></p>`,
    `<p style="font-size:13px;color:#555">Or paste this link into your browser:<br><a href="${u}">${u}</a></p>`,
  ].join('\n');
}

export function verifyEmailEmail(d: AccountLinkMailData): RenderedMail {
  const subject = 'Confirm your email address for Portage';
  const intro = 'Please confirm that this is your email address by opening the link below.';
  const expiry = `The link works once, for ${d.validFor}. If you did not create a Portage account, ignore this email.`;
  const text = [greeting(d.name), '', intro, '', d.url, '', expiry, ''].join('\n');
  return {
    subject,
    text,
    html: page(subject, [
      `<p>${escapeHtml(greeting(d.name))}</p>`,
      `<p>${escapeHtml(intro)}</p>`,
      button(d.url, 'Confirm my email address'),
      `<p>${escapeHtml(expiry)}</p>`,
    ]),
  };
}

export function passwordResetEmail(d: AccountLinkMailData): RenderedMail {
  const subject = 'Reset your Portage password';
  const intro = 'Someone (we hope you) asked to reset the password of your Portage account.';
  const how =
    'Open the link below to choose a new password. Every device signed in to your account will be signed out.';
  const expiry = `The link works once, for ${d.validFor}. If you did not ask for it, ignore this email: your password stays as it is.`;
  const text = [greeting(d.name), '', intro, how, '', d.url, '', expiry, ''].join('\n');
  return {
    subject,
    text,
    html: page(subject, [
      `<p>${escapeHtml(greeting(d.name))}</p>`,
      `<p>${escapeHtml(intro)} ${escapeHtml(how)}</p>`,
      button(d.url, 'Choose a new password'),
      `<p>${escapeHtml(expiry)}</p>`,
    ]),
  };
}

/** To an address not yet verified that asked for a password reset: verify first. */
export function verifyBeforeResetEmail(d: AccountLinkMailData): RenderedMail {
  const subject = 'Confirm your email address to reset your Portage password';
  const intro =
    'Someone (we hope you) asked to reset the password of your Portage account, but this email address is not confirmed yet. A password can only be reset by email once the address is confirmed.';
  const how = 'Confirm it with the link below, then ask for a password reset again.';
  const expiry = `The link works once, for ${d.validFor}. If you did not ask for it, ignore this email.`;
  const text = [greeting(d.name), '', intro, how, '', d.url, '', expiry, ''].join('\n');
  return {
    subject,
    text,
    html: page(subject, [
      `<p>${escapeHtml(greeting(d.name))}</p>`,
      `<p>${escapeHtml(intro)}</p>`,
      `<p>${escapeHtml(how)}</p>`,
      button(d.url, 'Confirm my email address'),
      `<p>${escapeHtml(expiry)}</p>`,
    ]),
  };
}
