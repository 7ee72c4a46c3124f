/**
 * A process for shutdown.test.ts, started with an IPC channel: it runs onShutdown at once, or with
 * WHEN=after-disconnect only once its channel is gone (a service still starting when its starter
 * died). It runs until something stops it; only onShutdown's stop exits with code 0.
 */
import { createLogger, onShutdown } from "../src/index.ts";

const install = () => onShutdown(createLogger("test", "silent"), async () => undefined);
if (process.env.WHEN === "after-disconnect") {
  if (process.connected) process.once("disconnect", install);
  else install();
} else {
  install();
  process.send!("ready");
}
setInterval(() => undefined, 1000); // as a service's listeners do
