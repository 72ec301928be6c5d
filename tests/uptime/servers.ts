import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";

/** Real HTTP(S) servers on loopback for the uptime tests, closed with `close()`. */
export interface TestServer {
  url: string;
  port: number;
  close: () => Promise<void>;
}

export async function listen(server: http.Server | https.Server): Promise<TestServer> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const scheme = server instanceof https.Server ? "https" : "http";
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function httpServer(handler: http.RequestListener): Promise<TestServer> {
  return listen(http.createServer(handler));
}

/**
 * A self-signed certificate for CN=localhost that expired in February 2020, made with the
 * `openssl ca` command (OpenSSL 3.0's `req` cannot back-date a certificate).
 */
export function expiredCertificate(): { key: string; cert: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "faultline-cert-"));
  try {
    const run = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
    run(
      "req",
      "-new",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "key.pem",
      "-out",
      "req.csr",
      "-subj",
      "/CN=localhost",
    );
    fs.writeFileSync(path.join(dir, "index.txt"), "");
    fs.writeFileSync(path.join(dir, "serial"), "01\n");
    fs.writeFileSync(
      path.join(dir, "ca.cnf"),
      "[ca]\ndefault_ca=d\n[d]\ndatabase=index.txt\nnew_certs_dir=.\nserial=serial\ndefault_md=sha256\npolicy=p\n[p]\ncommonName=supplied\n",
    );
    run(
      "ca",
      "-batch",
      "-config",
      "ca.cnf",
      "-selfsign",
      "-keyfile",
      "key.pem",
      "-in",
      "req.csr",
      "-out",
      "cert.pem",
      "-startdate",
      "20200101000000Z",
      "-enddate",
      "20200201000000Z",
    );
    return {
      key: fs.readFileSync(path.join(dir, "key.pem"), "utf8"),
      cert: fs.readFileSync(path.join(dir, "cert.pem"), "utf8"),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
