import nodemailer, { type Transporter } from "nodemailer";
import { env } from "../env";

/**
 * Faultline's one way to send mail (alerts, invitations, assignment notices), over the SMTP
 * server of FAULTLINE_SMTP_URL. Callers that must not lose a message queue it and retry;
 * this module only sends.
 */
export interface MailMessage {
  to: string | string[];
  subject: string;
  text: string;
  html?: string;
  headers?: Record<string, string>;
}

export function mailConfigured(): boolean {
  return env().FAULTLINE_SMTP_URL !== undefined;
}

let transport: Transporter | undefined;

function getTransport(): Transporter {
  const url = env().FAULTLINE_SMTP_URL;
  if (!url) throw new Error("no mail server configured (FAULTLINE_SMTP_URL)");
  // A hung mail server must not hold a sender for long: every phase has a deadline.
  transport ??= nodemailer.createTransport({
    url,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
  return transport;
}

/** Sends one message; rejects with the server's answer when it is refused. */
export async function sendMail(message: MailMessage): Promise<{ messageId: string }> {
  const info = await getTransport().sendMail({ from: env().FAULTLINE_EMAIL_FROM, ...message });
  return { messageId: info.messageId };
}
