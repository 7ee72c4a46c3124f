import Agent from "undici/lib/dispatcher/agent.js";
import Dispatcher from "undici/lib/dispatcher/dispatcher.js";
import Pool from "undici/lib/dispatcher/pool.js";
import api from "undici/lib/api/index.js";

/**
 * undici's Pool and Agent, from their own modules. undici's index loads the whole library (fetch,
 * WebSocket, HTTP/2, caches, mocks) and the node modules those need, in every process that imports
 * it, where starpost uses only these two classes and their request() (what that costs at idle is in
 * docs/operations.md, "Memory"). They are the classes the index exports, with what the index adds
 * to every dispatcher (request(), stream(), ...); undici-modules.d.ts gives them its types. This
 * reaches past undici's public entry point: test/runtime-adapters.test.ts fails when an undici
 * version moves these modules or makes them differ from what the index exports.
 */
Object.assign(Dispatcher.prototype, api);

export { Agent, Pool };
