import { webPaths } from '../web/paths';
import { type Login, ONE_TIME_LINK_SECONDS, type OneTimeLink, type OneTimePurpose } from './identity';
import { invitationMail, type Mailer, noAccountMail, passwordResetMail, verificationMail } from './mail';
import { hashSecret, randomSecret } from './session';

/** One-time links (confirm an address, reset a password, accept an invitation): made, stored by hash, mailed. */

export interface LinkPorts {
  readonly links: { putOneTimeLink(link: OneTimeLink): Promise<void> };
  readonly mailer: Mailer;
  readonly now: () => Date;
}

/** Makes a link of `purpose` for `login`, mails it to the login's address, and returns it. */
export interface ResetPorts extends LinkPorts {
  readonly logins: { getLogin(email: string): Promise<Login | null> };
}

/**
 * A password reset asked for `email`. The work is the same whether the address has an account or
 * not (one read, one secret hashed, one link stored, one mail sent), so the answer's timing does not
 * tell which: an unknown address gets a link for no account (its secret is dropped, so it opens
 * nothing, and it expires with the others) and a mail saying there is no account.
 */
export async function requestPasswordReset(ports: ResetPorts, baseUrl: string, email: string): Promise<void> {
  const login = await ports.logins.getLogin(email);
  if (login) {
    await sendOneTimeLink(ports, baseUrl, 'reset-password', login);
    return;
  }
  await sendOneTimeLink(
    { ...ports, mailer: { send: (mail) => ports.mailer.send(noAccountMail(mail.to, signUpLink(baseUrl))) } },
    baseUrl,
    'reset-password',
    { email, userId: NO_ACCOUNT },
  );
}

/** The user id of a link made for an address without an account; no password link with it is usable. */
export const NO_ACCOUNT = '';

const signUpLink = (baseUrl: string) => `${baseUrl.replace(/\/+$/, '')}${webPaths.signUp}`;

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
