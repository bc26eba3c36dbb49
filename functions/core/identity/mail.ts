/** The mail the accounts send (verification, password reset, invitation), and the port that sends it. */

export interface Mail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  /** The one link the mail is about (printed on the local console, found by tests). */
  readonly link: string;
}

/** Sends mail: SES on AWS, a folder of files (and the console) locally. */
export interface Mailer {
  send(mail: Mail): Promise<void>;
}

export function verificationMail(to: string, link: string): Mail {
  return {
    to,
    link,
    subject: 'Confirm your email address for Gleaner',
    text: `Confirm this address for your Gleaner account by opening:\n\n${link}\n\nThe link works for 7 days. If you did not sign up, ignore this mail.\n`,
  };
}

/** Sent when someone signs up with an address that already has an account: the page said the same either way. */
export function alreadyRegisteredMail(to: string, link: string): Mail {
  return {
    to,
    link,
    subject: 'You already have a Gleaner account',
    text: `Someone (perhaps you) tried to sign up for Gleaner with this address, which already has an account.\nSign in, or reset your password, at:\n\n${link}\n\nIf it was not you, ignore this mail.\n`,
  };
}

/** Sent when someone asks to reset the password of an address with no account: the page said the same either way. */
export function noAccountMail(to: string, link: string): Mail {
  return {
    to,
    link,
    subject: 'No Gleaner account uses this address',
    text: `Someone (perhaps you) asked to reset the Gleaner password of this address, which has no account.\nSign up at:\n\n${link}\n\nIf it was not you, ignore this mail.\n`,
  };
}

export function passwordResetMail(to: string, link: string): Mail {
  return {
    to,
    link,
    subject: 'Reset your Gleaner password',
    text: `Choose a new password for your Gleaner account at:\n\n${link}\n\nThe link works for one hour, once. If you did not ask for it, ignore this mail: your password stays as it is.\n`,
  };
}

export function invitationMail(to: string, link: string): Mail {
  return {
    to,
    link,
    subject: 'Your Gleaner account is ready',
    text: `An operator made you a Gleaner account. Choose your password at:\n\n${link}\n\nThe link works for 7 days, once.\n`,
  };
}
