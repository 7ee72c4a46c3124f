/**
 * The ceiling for one HTTP hop on this machine: a bare fastify server answering a fixed JSON, in
 * its own process. Prints "listening <port>" when ready.
 */
import Fastify from "fastify";

const app = Fastify({ logger: false });
const answer = { ok: true, result: { message_id: 1, date: 0, chat: { id: 1, type: "private" } } };
app.get("/", async () => answer);
app.post("/", async () => answer);
const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: "127.0.0.1" });
process.stdout.write(`listening ${new URL(address).port}\n`);
