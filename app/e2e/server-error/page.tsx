import { requireE2eRoutes } from "../require-e2e-routes";

export default async function ServerErrorPage(): Promise<never> {
  await requireE2eRoutes();
  throw new Error("Faultline e2e: server-side rendering failed on purpose");
}
