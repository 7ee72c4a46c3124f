/**
 * A webhook receiver in its own process: takes POSTed JSON, answers 200 with an empty body, and
 * counts what it got (GET /count). Prints "listening <port>" when ready.
 */
import { createServer } from "node:http";

let received = 0;
const server = createServer((req, res) => {
  if (req.method === "GET") {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ received }));
    return;
  }
  req.resume();
  req.on("end", () => {
    received++;
    res.writeHead(200, { "content-length": "0" }).end();
  });
});
server.keepAliveTimeout = 75_000;
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  process.stdout.write(`listening ${(server.address() as { port: number }).port}\n`);
});
