import { redirect } from "next/navigation";
import { withOrg } from "@/src/auth/with-org";

/** An organization opens on its issues. The check comes first, so a stranger still gets 401/404. */
export default async function OrgPage({ params }: { params: Promise<{ org: string }> }) {
  const ctx = await withOrg((await params).org, { need: "org.read" });
  redirect(`/${ctx.org.slug}/issues`);
}
