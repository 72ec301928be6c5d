import { z } from "zod";
import { orgApiRoute, slugParam } from "@/src/api/handler";
import { createTeamProjectResponse } from "@/src/orgs/api";

const params = z.object({ org: slugParam, team: slugParam });

export const POST = orgApiRoute(
  { params, need: "project:write" },
  ({ db, grant, params, request }) => createTeamProjectResponse(db, grant, params.team, request),
);
