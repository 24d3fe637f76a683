import { createTransport, Transporter } from 'nodemailer';
import { DeliveryError, isTransientSmtpCode, networkReason } from './delivery-error';

export interface EmailOptions {
  smtpUrl: string;
  from: string;
  timeoutMs: number;
}

export interface Email {
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** The delivery's id, as the message's `X-Corelite-Delivery` header. */
  deliveryId: string;
}

/**
 * Sends email over SMTP with nodemailer: one transport (one connection per message) per SMTP_URL.
 * An SMTP 4xx reply or a network failure is transient, a 5xx reply permanent. Messages never show
 * SMTP_URL (it may carry a password).
 */
export class EmailSender {
  private readonly transport: Transporter;

  constructor(private readonly options: EmailOptions) {
    this.transport = createTransport({
      url: options.smtpUrl,
      connectionTimeout: options.timeoutMs,
      greetingTimeout: options.timeoutMs,
      socketTimeout: options.timeoutMs,
      disableFileAccess: true,
      disableUrlAccess: true,
    } as never);
  }

  async send(email: Email): Promise<void> {
    try {
      await this.transport.sendMail({
        from: this.options.from,
        to: email.to,
        subject: email.subject,
        text: email.text,
        html: email.html,
        headers: { 'X-Corelite-Delivery': email.deliveryId },
      });
    } catch (error) {
      const { responseCode, code, response } = error as { responseCode?: number; code?: string; response?: string };
      if (typeof responseCode === 'number') {
        const reply = (response ?? String(responseCode)).replace(/[\r\n]+/g, ' ').slice(0, 300);
        throw new DeliveryError(`SMTP server answered ${reply}`, !isTransientSmtpCode(responseCode));
      }
      throw new DeliveryError(`SMTP server unreachable: ${networkReason(code)}`, false);
    }
  }

  close(): void {
    this.transport.close();
  }
}
