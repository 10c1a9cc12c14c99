import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** Mailer port: SMTP in production, files under DATA_DIR/mail on a laptop. */
export interface Mailer {
  readonly kind: 'smtp' | 'file';
  send(mail: Mail): Promise<void>;
}

export function createSmtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport(url);
  return {
    kind: 'smtp',
    async send(mail) {
      await transport.sendMail({ from, ...mail });
    },
  };
}

/**
 * A mail's file name: when, a readable bounded part of the address and a short hash of all of it, so
 * any address (up to 254 characters) makes a valid name and mails to one address sort together.
 */
export function mailFileName(to: string, at = new Date()): string {
  const readable = to.toLowerCase().replace(/[^a-z0-9@._-]/g, '_').slice(0, 64);
  const hash = createHash('sha256').update(to.toLowerCase()).digest('hex').slice(0, 12);
  return `${at.toISOString().replace(/[:.]/g, '-')}-${readable}-${hash}-${randomBytes(3).toString('hex')}.txt`;
}

/**
 * Writes each mail as a file, readable by this user only, so password reset works with no mail
 * server. The log says a mail was written and where, never its body: a reset link is a password.
 */
export function createFileMailer(dir: string, logger: Logger): Mailer {
  return {
    kind: 'file',
    async send(mail) {
      await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
      const file = path.join(dir, mailFileName(mail.to));
      await fs.promises.writeFile(file, `To: ${mail.to}\nSubject: ${mail.subject}\n\n${mail.text}\n`, { mode: 0o600, flag: 'wx' });
      logger.info({ subject: mail.subject, file }, 'mail written to disk (no SMTP_URL)');
    },
  };
}
