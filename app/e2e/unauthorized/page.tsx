import { unauthorized } from "next/navigation";
import { requireE2eRoutes } from "../require-e2e-routes";

export default async function UnauthorizedPage(): Promise<never> {
  await requireE2eRoutes();
  unauthorized();
}
