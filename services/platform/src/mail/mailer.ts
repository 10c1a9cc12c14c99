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

/** Writes each mail as a file and logs it, so password reset works with no mail server. */
export function createFileMailer(dir: string, logger: Logger): Mailer {
  return {
    kind: 'file',
    async send(mail) {
      await fs.promises.mkdir(dir, { recursive: true });
      const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${mail.to.replace(/[^\w@.-]/g, '_')}.txt`);
      await fs.promises.writeFile(file, `To: ${mail.to}\nSubject: ${mail.subject}\n\n${mail.text}\n`);
      logger.info({ to: mail.to, subject: mail.subject, file, body: mail.text }, 'mail written to disk (no SMTP_URL)');
    },
  };
}
