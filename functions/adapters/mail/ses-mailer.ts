import type { SESv2Client } from '@aws-sdk/client-sesv2';
import type { Mail, Mailer } from '../../core/identity/mail';

/**
 * Mail through Amazon SES (v2 API) from a verified sender identity. The SES client is loaded with the
 * first mail: most requests of the functions that may send one (sign-in, account pages) send none.
 */
export class SesMailer implements Mailer {
  private client:
    | Promise<{ client: SESv2Client; SendEmailCommand: typeof import('@aws-sdk/client-sesv2').SendEmailCommand }>
    | undefined;

  constructor(
    private readonly from: string,
    private readonly instrument: <C>(client: C) => C = (client) => client,
  ) {}

  async send(mail: Mail): Promise<void> {
    this.client ??= import('@aws-sdk/client-sesv2').then(({ SESv2Client, SendEmailCommand }) => ({
      client: this.instrument(new SESv2Client({ region: process.env.AWS_REGION ?? 'us-east-1' })),
      SendEmailCommand,
    }));
    const { client, SendEmailCommand } = await this.client;
    await client.send(
      new SendEmailCommand({
        FromEmailAddress: this.from,
        Destination: { ToAddresses: [mail.to] },
        Content: {
          Simple: {
            Subject: { Data: mail.subject, Charset: 'UTF-8' },
            Body: { Text: { Data: mail.text, Charset: 'UTF-8' } },
          },
        },
      }),
    );
  }
}
