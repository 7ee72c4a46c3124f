import Agent from "undici/lib/dispatcher/agent.js";
import Dispatcher from "undici/lib/dispatcher/dispatcher.js";
import Pool from "undici/lib/dispatcher/pool.js";
import api from "undici/lib/api/index.js";

/**
 * undici's Pool and Agent, from their own modules. undici's index loads the whole library (fetch,
 * WebSocket, HTTP/2, caches, mocks) and the node modules those need: about 7 MB of RSS in each
 * process that imports it (3 MB of heap, the rest node's own code), where starpost uses only these
 * two classes and their request(). They are the classes the index exports, with what the index
 * adds to every dispatcher (request(), stream(), ...); undici-modules.d.ts gives them its types.
 */
Object.assign(Dispatcher.prototype, api);

export { Agent, Pool };
