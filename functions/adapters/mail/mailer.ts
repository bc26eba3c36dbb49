import type { Mailer } from '../../core/identity/mail';
import type { Environment } from '../../platform/env';
import { setting, settings } from '../../platform/settings';
import { FolderMailer } from './folder-mailer';
import { SesMailer } from './ses-mailer';

/**
 * The mailer the environment names: a folder locally (MAIL_FOLDER), else SES from MAIL_FROM. A
 * folder's mailer prints each mail's line with `print` (the console by default).
 */
export function createMailer(
  env: Environment,
  options: { instrument?: <C>(client: C) => C; print?: (line: string) => void } = {},
): Mailer {
  const folder = setting(env, settings.mailFolder);
  if (folder) return new FolderMailer(folder, options.print);
  return new SesMailer(setting(env, settings.mailFrom), options.instrument);
}
