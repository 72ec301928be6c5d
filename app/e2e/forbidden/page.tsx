import { forbidden } from "next/navigation";
import { requireE2eRoutes } from "../require-e2e-routes";

export default async function ForbiddenPage(): Promise<never> {
  await requireE2eRoutes();
  forbidden();
}
