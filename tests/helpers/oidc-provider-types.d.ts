/** The few parts of oidc-provider (which ships no types) the tests use. */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  interface KoaContext {
    path: string;
    body: unknown;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
  }
}
