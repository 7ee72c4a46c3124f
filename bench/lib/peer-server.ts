/** telegram-test-api (the peer) in its own process. Prints "listening <port>" when ready. */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const TelegramServer = require("telegram-test-api") as new (c: {
  port: number;
  host: string;
  storeTimeout: number;
}) => {
  start(): Promise<void>;
};
const port = Number(process.env.PORT);
const server = new TelegramServer({ port, host: "127.0.0.1", storeTimeout: 600 });
await server.start();
process.stdout.write(`listening ${port}\n`);
