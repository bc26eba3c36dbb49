import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import type { Mail, Mailer } from '../../core/identity/mail';

/** Mail through Amazon SES (v2 API) from a verified sender identity. */
export class SesMailer implements Mailer {
  constructor(
    private readonly client: SESv2Client,
    private readonly from: string,
  ) {}

  async send(mail: Mail): Promise<void> {
    await this.client.send(
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

export function createSesClient(options: { instrument?: <C>(client: C) => C } = {}): SESv2Client {
  const instrument = options.instrument ?? ((client) => client);
  return instrument(new SESv2Client({ region: process.env.AWS_REGION ?? 'us-east-1' }));
}
