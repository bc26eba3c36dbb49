import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Mail, Mailer } from '../../core/identity/mail';

/**
 * The local stack's mail: each message is a JSON file in a folder of the data directory, and its link
 * is printed on the console, so sign-up, verification and reset work offline (and tests read them).
 */
export class FolderMailer implements Mailer {
  private sequence = 0;

  constructor(
    private readonly folder: string,
    private readonly print: (line: string) => void = (line) => console.log(line),
  ) {}

  async send(mail: Mail): Promise<void> {
    mkdirSync(this.folder, { recursive: true });
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}-${++this.sequence}.json`;
    writeFileSync(join(this.folder, name), `${JSON.stringify({ ...mail, sent: new Date().toISOString() }, null, 2)}\n`);
    this.print(`mail to ${mail.to}: ${mail.subject}\n  ${mail.link}`);
  }
}
