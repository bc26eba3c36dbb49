import { describe, expect, it } from 'vitest';
import type { Login, OneTimeLink } from '../../functions/core/identity/identity';
import { NO_ACCOUNT, requestPasswordReset } from '../../functions/core/identity/links';
import type { Mail } from '../../functions/core/identity/mail';

const known: Login = {
  email: 'ada@example.com',
  userId: 'user-ada',
  passwordHash: 'x',
  verified: true,
  created: '2026-01-01T00:00:00Z',
};

/** The port calls a reset request makes, in order, with what each was given. */
async function callsFor(email: string) {
  const calls: string[] = [];
  const links: OneTimeLink[] = [];
  const mails: Mail[] = [];
  await requestPasswordReset(
    {
      logins: {
        getLogin: async (address) => {
          calls.push('getLogin');
          return address === known.email ? known : null;
        },
      },
      links: {
        putOneTimeLink: async (link) => {
          calls.push('putOneTimeLink');
          links.push(link);
        },
      },
      mailer: {
        send: async (mail) => {
          calls.push('send');
          mails.push(mail);
        },
      },
      now: () => new Date('2026-11-28T00:00:00Z'),
    },
    'https://gleaner.example/',
    email,
  );
  return { calls, links, mails };
}

describe('password reset request', () => {
  it('does the same work for an address with an account and one without (timing tells nothing)', async () => {
    const a = await callsFor(known.email);
    const b = await callsFor('nobody@example.com');
    expect(a.calls).toEqual(['getLogin', 'putOneTimeLink', 'send']);
    expect(b.calls).toEqual(a.calls);
    expect(b.links[0]!.expiresAt).toBe(a.links[0]!.expiresAt);
    expect(b.links[0]!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('mails the reset link to the account and a no-account note (with the sign-up page) to the other', async () => {
    const a = await callsFor(known.email);
    expect(a.links[0]).toMatchObject({ purpose: 'reset-password', userId: 'user-ada', email: known.email });
    expect(a.mails[0]!.link).toMatch(/^https:\/\/gleaner\.example\/set-password\?token=/);
    const b = await callsFor('nobody@example.com');
    expect(b.links[0]).toMatchObject({ userId: NO_ACCOUNT, email: 'nobody@example.com' });
    expect(b.mails[0]).toMatchObject({ to: 'nobody@example.com', link: 'https://gleaner.example/signup' });
    expect(b.mails[0]!.text).not.toContain('token=');
  });
});
