import { requireE2eRoutes } from "../require-e2e-routes";
import { ThrowOnClick } from "./throw-on-click";

export default async function ClientErrorPage() {
  await requireE2eRoutes();
  return (
    <main style={{ fontFamily: "system-ui, sans-serif", padding: "2rem" }}>
      <h1>Client-side error</h1>
      <ThrowOnClick />
    </main>
  );
}
