import type { Transaction } from "kysely";
import type { Database } from "../../db/schema";
import type { OutcomeCounter } from "../process/outcomes";
import type { ProtocolItems } from "../process/protocol-items";
import { storeCheckIns } from "./check-ins";
import { storeAttachments, storeFeedback } from "./feedback";
import { storeSessions } from "./sessions";

/** The store stage for everything but events, in the batch's transaction. */
export async function storeProtocolItems(
  items: ProtocolItems,
  outcomes: OutcomeCounter,
  trx: Transaction<Database>,
): Promise<void> {
  await storeSessions(items.sessions, trx);
  await storeCheckIns(items.checkIns, trx);
  await storeFeedback(items.feedback, trx);
  await storeAttachments(items.attachments, outcomes, trx);
}
