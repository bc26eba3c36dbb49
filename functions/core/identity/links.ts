import { webPaths } from '../web/paths';
import { type Login, ONE_TIME_LINK_SECONDS, type OneTimeLink, type OneTimePurpose } from './identity';
import { invitationMail, type Mailer, passwordResetMail, verificationMail } from './mail';
import { hashSecret, randomSecret } from './session';

/** One-time links (confirm an address, reset a password, accept an invitation): made, stored by hash, mailed. */

export interface LinkPorts {
  readonly links: { putOneTimeLink(link: OneTimeLink): Promise<void> };
  readonly mailer: Mailer;
  readonly now: () => Date;
}

/** Makes a link of `purpose` for `login`, mails it to the login's address, and returns it. */
export async function sendOneTimeLink(
  ports: LinkPorts,
  baseUrl: string,
  purpose: OneTimePurpose,
  login: Pick<Login, 'email' | 'userId'>,
): Promise<string> {
  const secret = randomSecret();
  await ports.links.putOneTimeLink({
    tokenHash: hashSecret(secret),
    purpose,
    userId: login.userId,
    email: login.email,
    expiresAt: Math.floor(ports.now().getTime() / 1000) + ONE_TIME_LINK_SECONDS[purpose],
  });
  const path = purpose === 'verify-email' ? webPaths.verifyEmail : webPaths.setPassword;
  const link = `${baseUrl.replace(/\/+$/, '')}${path}?token=${secret}`;
  const mail = { 'verify-email': verificationMail, 'reset-password': passwordResetMail, invite: invitationMail }[
    purpose
  ];
  await ports.mailer.send(mail(login.email, link));
  return link;
}
