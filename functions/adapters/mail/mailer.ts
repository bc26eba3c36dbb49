import type { Mailer } from '../../core/identity/mail';
import type { Environment } from '../../platform/env';
import { setting, settings } from '../../platform/settings';
import { FolderMailer } from './folder-mailer';
import { SesMailer } from './ses-mailer';

/** The mailer the environment names: a folder locally (MAIL_FOLDER), else SES from MAIL_FROM. */
export function createMailer(env: Environment, options: { instrument?: <C>(client: C) => C } = {}): Mailer {
  const folder = setting(env, settings.mailFolder);
  if (folder) return new FolderMailer(folder);
  return new SesMailer(setting(env, settings.mailFrom), options.instrument);
}
