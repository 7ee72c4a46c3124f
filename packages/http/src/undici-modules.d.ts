// The undici modules that undici.ts imports by path: the same classes as undici's index exports.
declare module "undici/lib/dispatcher/agent.js" {
  import { Agent } from "undici";
  export default Agent;
}
declare module "undici/lib/dispatcher/dispatcher.js" {
  import { Dispatcher } from "undici";
  export default Dispatcher;
}
declare module "undici/lib/dispatcher/pool.js" {
  import { Pool } from "undici";
  export default Pool;
}
declare module "undici/lib/api/index.js" {
  const api: Record<string, unknown>;
  export default api;
}
