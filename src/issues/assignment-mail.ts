import { mailConfigured, sendMail } from "../mail/transport";
import type { AssignmentResult } from "./assignment";

/**
 * Tells the new assignee by email. Best effort and after the fact: the assignment stands
 * whether or not mail is configured or the server takes the message, and nobody is told of
 * an issue they assigned to themselves.
 */
export async function notifyAssignee(
  result: AssignmentResult,
  actor: { id: string; name: string; email: string },
  issueUrl: string,
): Promise<"sent" | "skipped" | "failed"> {
  const { assignee } = result;
  if (!result.changed || !assignee || assignee.id === actor.id || !mailConfigured())
    return "skipped";
  const title = oneLine(result.issue.title, 150);
  try {
    await sendMail({
      to: assignee.email,
      subject: `Assigned to you: ${title}`,
      text: [
        `${actor.name || actor.email} assigned an issue to you in Faultline:`,
        "",
        title,
        issueUrl,
        "",
        "You get this message because you are a member of the organization.",
      ].join("\n"),
    });
    return "sent";
  } catch (err) {
    console.warn(
      `[mail] could not tell ${assignee.email} of an assignment:`,
      (err as Error).message,
    );
    return "failed";
  }
}

/** Event titles are the SDK's text: one line, bounded, for a subject header. */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/[\r\n\t]+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
