import type { Mail } from '@cliffhanger/platform';
import { THROTTLE_AFTER_FAILURES } from './login-throttle.ts';

/** The user service's mails, in the site's language of mail (English), each with its link to PUBLIC_URL. */
export const RESET_TOKEN_MINUTES = 30;
export const VERIFY_TOKEN_HOURS = 24;

const site = (publicUrl: string) => publicUrl.replace(/\/+$/, '');

export const resetMail = (publicUrl: string, to: string, token: string): Mail => ({
  to,
  subject: 'Reset your Cliffhanger password',
  text: `Someone asked to reset the password of your Cliffhanger account.\n\nChoose a new password here (the link works once, for ${RESET_TOKEN_MINUTES} minutes):\n${site(publicUrl)}/retrievePassword?reset=${token}\n\nIf it was not you, ignore this mail: your password stays as it is.`,
});

export const verificationMail = (publicUrl: string, to: string, token: string): Mail => ({
  to,
  subject: 'Confirm your email for Cliffhanger',
  text: `Please confirm that this is your email address for Cliffhanger (the link works once, for ${VERIFY_TOKEN_HOURS} hours):\n${site(publicUrl)}/verifyEmail?verify=${token}\n\nIf you did not make an account with this address, ignore this mail: the account stays unconfirmed, and signing in with Google or Facebook under this address takes it over.`,
});

export const throttleNoticeMail = (publicUrl: string, to: string): Mail => ({
  to,
  subject: 'Failed logins to your Cliffhanger account',
  text: `Someone has entered a wrong password for your Cliffhanger account ${THROTTLE_AFTER_FAILURES} times in a row. Logins to it from new devices are slowed down for now; the browsers you have logged in with before are not affected.\n\nIf it was you, wait a little or reset your password:\n${site(publicUrl)}/retrievePassword\n\nIf it was not you, your account is safe as long as your password is strong; consider changing it.`,
});
