import http from "node:http";
import net from "node:net";
import type { ParsedMail } from "mailparser";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/**
 * Real receivers for alert delivery tests: an HTTP server whose paths behave as Slack,
 * Discord, a generic webhook, a flaky or gone receiver, one that hangs, one that answers 10 MB;
 * a TCP server that answers garbage; and a real SMTP server whose mail is parsed by mailparser.
 */
export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receivers {
  url: string;
  garbageUrl: string;
  requests: Received[];
  /** Paths answered 503 this many times before 200. */
  flaky: Map<string, number>;
  /** While true, /hang never answers. */
  hang: { on: boolean };
  close(): Promise<void>;
}

export async function startReceivers(): Promise<Receivers> {
  const requests: Received[] = [];
  const flaky = new Map<string, number>();
  const hang = { on: true };
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0] as string;
      requests.push({
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        at: Date.now(),
      });
      if (path.startsWith("/hang") && hang.on) {
        held.push(res);
        return;
      }
      if (path.startsWith("/huge")) {
        res.writeHead(200, { "content-type": "text/plain" });
        const mb = Buffer.alloc(1024 * 1024, "x");
        let i = 0;
        const write = () => {
          while (i < 10) {
            i++;
            if (!res.write(mb)) return void res.once("drain", write);
          }
          res.end();
        };
        res.on("error", () => {});
        write();
        return;
      }
      if (path.startsWith("/gone")) {
        res.writeHead(404).end("no such hook");
        return;
      }
      if (path.startsWith("/redirect")) {
        res.writeHead(302, { location: "http://169.254.169.254/" }).end();
        return;
      }
      const left = flaky.get(path) ?? 0;
      if (left > 0) {
        flaky.set(path, left - 1);
        res.writeHead(503).end("try later");
        return;
      }
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const garbage = net.createServer((socket) => {
    socket.on("error", () => {});
    socket.once("data", () => socket.end("this is not HTTP at all\r\n\x00\x01\x02\r\n\r\n"));
  });
  await new Promise<void>((r) => garbage.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    garbageUrl: `http://127.0.0.1:${(garbage.address() as net.AddressInfo).port}/hook`,
    requests,
    flaky,
    hang,
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await new Promise<void>((r) => garbage.close(() => r()));
    },
  };
}

export interface MailSink {
  port: number;
  mail: ParsedMail[];
  close(): Promise<void>;
}

export async function startSmtp(): Promise<MailSink> {
  const mail: ParsedMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, done) {
      simpleParser(stream)
        .then((parsed) => {
          (parsed as ParsedMail & { receivedAt: number }).receivedAt = Date.now();
          mail.push(parsed);
          done();
        })
        .catch(done);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  return {
    port: (smtp.server.address() as net.AddressInfo).port,
    mail,
    close: () => new Promise<void>((r) => smtp.close(() => r())),
  };
}
