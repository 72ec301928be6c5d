import http from "node:http";
import type { AddressInfo } from "node:net";
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from "jose";
import Provider from "oidc-provider";

/**
 * A real OpenID Connect provider (the `oidc-provider` package) on a loopback port, with its
 * development login screens: any login name is accepted as the account, whose email it is.
 * The test holds the signing key, so it can make the token endpoint hand out id tokens that
 * are correctly signed but wrong in one claim (another issuer, audience or nonce).
 */
export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Claims to overwrite in the next id tokens (null: hand them out as issued). */
  tamper(claims: Record<string, string> | null): void;
  close(): Promise<void>;
}

export async function startTestIdp(redirectUris: string[]): Promise<TestIdp> {
  let handler: http.RequestListener = (_req, res) => res.end();
  const server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: "test-key", alg: "RS256", use: "sig" };
  const clientId = "faultline-test";
  const clientSecret = "a client secret of the test provider";
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: ["oidc test cookie key"] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    // The id token carries the email itself, as most providers' do.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    findAccount: async (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: async () => ({
        sub: `sub-${id}`,
        email: id,
        email_verified: true,
        name: id.split("@")[0],
      }),
    }),
  });
  let overwrite: Record<string, string> | null = null;
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (overwrite && ctx.path === "/token" && body && typeof body.id_token === "string") {
      const claims = { ...decodeJwt(body.id_token), ...overwrite };
      const idToken = await new SignJWT(claims)
        .setProtectedHeader({ alg: "RS256", kid: "test-key", typ: "JWT" })
        .sign(privateKey);
      ctx.body = { ...body, id_token: idToken };
    }
  });
  handler = provider.callback();
  return {
    issuer,
    clientId,
    clientSecret,
    tamper: (claims) => {
      overwrite = claims;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
