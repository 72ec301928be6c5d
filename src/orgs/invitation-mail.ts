import { mailConfigured, sendMail } from "../mail/transport";

/**
 * Sends an invitation's link. Without a mail server nothing is sent and the inviter copies
 * the link instead; a refused message is reported so the inviter can do the same.
 */
export async function emailInvitation(input: {
  to: string;
  orgName: string;
  role: string;
  inviter: string;
  url: string;
  expiresAt: number;
}): Promise<{ sent: true } | { sent: false; reason: string }> {
  if (!mailConfigured()) return { sent: false, reason: "no mail server is configured" };
  const orgName = input.orgName.replace(/[\r\n]+/g, " ").slice(0, 100);
  try {
    await sendMail({
      to: input.to,
      subject: `Join ${orgName} on Faultline`,
      text: [
        `${input.inviter} invited you to join ${orgName} on Faultline as ${input.role}.`,
        "",
        `Accept the invitation: ${input.url}`,
        "",
        `The link works once and expires on ${new Date(input.expiresAt).toUTCString()}.`,
        "If you did not expect this, ignore this message.",
      ].join("\n"),
    });
    return { sent: true };
  } catch (err) {
    return { sent: false, reason: (err as Error).message.slice(0, 200) };
  }
}
