import { createShopBot } from "./bot.ts";

// BOT_TOKEN from starpost's platform API (or BotFather); API_ROOT e.g. http://127.0.0.1:8081.
const token = process.env.BOT_TOKEN;
if (!token) throw new Error("set BOT_TOKEN (and API_ROOT to use starpost)");
const bot = createShopBot(token, { apiRoot: process.env.API_ROOT });
const stop = () => void bot.stop();
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
await bot.start({ onStart: (me) => console.log(`@${me.username} is running`) });
