// The starpost console: the bots, a bot's chats as the person in them sees them, and what the
// bot did (webhook, request log, faults, Stars). Everything goes through the platform API.
import { api, ApiError, token } from "./api.js";
import { el, messageNode } from "./render.js";

const $ = (id) => document.getElementById(id);
/** declined and paid: invoice messages this tab declined or paid (`bot:chat:message`). */
const state = { bot: undefined, chat: undefined, poll: undefined, declined: new Set(), paid: new Set() };
const messageKey = (m) => `${state.bot.id}:${state.chat.id}:${m.message_id}`;

/** Runs `work`, showing its error under `where`; a 401 signs out (the token is bad or expired). */
async function guarded(where, work) {
  $(where).textContent = "";
  $("chat-answer").textContent = "";
  try {
    return await work();
  } catch (err) {
    if (err.name === "AbortError") return;
    if (err instanceof ApiError && err.code === 401) return signOut(err.message);
    $(where).textContent = err.message;
  }
}

function signOut(reason = "") {
  token.clear();
  state.poll?.abort();
  Object.assign(state, { bot: undefined, chat: undefined });
  $("app").hidden = $("sign-out").hidden = true;
  $("sign-in").hidden = false;
  $("sign-in-error").textContent = reason;
}

async function signIn() {
  $("sign-in").hidden = true;
  $("app").hidden = $("sign-out").hidden = false;
  await loadBots();
}

async function loadBots() {
  await guarded("bots-error", async () => {
    const { bots } = await api("GET", "/bots");
    $("bot-list").replaceChildren(
      ...bots.map((b) =>
        el("li", { class: `pick${state.bot?.id === b.id ? " on" : ""}`, onclick: () => openBot(b) }, `@${b.username}`),
      ),
    );
  });
}

/** A token is shown once, right after it was made; the console never reads one back. */
function showToken(username, value) {
  $("token-notice").hidden = false;
  $("token-notice").textContent = `@${username}'s token (shown once): ${value}`;
}

async function openBot(bot) {
  state.bot = bot;
  closeChat();
  $("bot").hidden = false;
  $("token-notice").hidden = true;
  $("bot-title").textContent = `${bot.first_name} (@${bot.username})`;
  await Promise.all([loadBots(), loadChats(), refreshPanels()]);
}

async function loadChats() {
  const { chats } = await api("GET", `/bots/${state.bot.id}/chats`);
  $("chat-list").replaceChildren(
    ...chats.map((c) =>
      el(
        "li",
        { class: `pick${state.chat?.id === c.id ? " on" : ""}`, onclick: () => openChat(c) },
        c.title ?? [c.first_name, c.last_name].filter(Boolean).join(" "),
        ` (${c.id})`,
      ),
    ),
  );
}

const date = (s) => (s ? new Date(s * 1000).toLocaleString() : "—");

/** The webhook, Stars, faults and request log of the open bot. */
async function refreshPanels() {
  const id = state.bot?.id;
  if (!id) return;
  const [webhook, stars, { faults }, { requests }] = await Promise.all([
    api("GET", `/bots/${id}/webhook`),
    api("GET", `/bots/${id}/stars`),
    api("GET", `/bots/${id}/faults`),
    api("GET", `/bots/${id}/requests?limit=20`),
  ]);
  if (state.bot?.id !== id) return;
  const rows = {
    URL: webhook.url || "none (getUpdates)",
    Pending: webhook.pending_update_count,
    "Last error": webhook.last_error_message ?? "—",
    "Error date": date(webhook.last_error_date),
    "Next retry": date(webhook.next_retry_date),
  };
  $("webhook").replaceChildren(
    ...Object.entries(rows).flatMap(([k, v]) => [el("dt", {}, k), el("dd", { "data-field": k }, String(v))]),
  );
  $("balance").textContent = `— balance ${stars.balance.amount} ⭐`;
  $("ledger").tBodies[0].replaceChildren(
    ...stars.transactions
      .toReversed()
      .map((t) =>
        el(
          "tr",
          {},
          el("td", {}, date(t.date)),
          el("td", {}, `${t.source ? "+" : "−"}${t.amount} ⭐`),
          el("td", {}, (t.source ?? t.receiver)?.user?.first_name ?? "—"),
          el("td", {}, (t.source ?? t.receiver)?.invoice_payload ?? ""),
        ),
      ),
  );
  $("faults").replaceChildren(
    ...faults.map((f) =>
      el(
        "li",
        {},
        `${f.method}: ${f.error_code ?? ""} ${f.description ?? ""}${f.delay_ms ? ` after ${f.delay_ms} ms` : ""} ×${f.times}`,
      ),
    ),
  );
  $("requests").tBodies[0].replaceChildren(
    ...requests
      .toReversed()
      .map((r) =>
        el(
          "tr",
          {},
          el("td", {}, new Date(r.date * 1000).toLocaleTimeString()),
          el("td", {}, r.method),
          el("td", {}, r.ok ? "200" : `${r.error_code} ${r.description ?? ""}`),
          el("td", {}, String(r.duration_ms)),
        ),
      ),
  );
}

function closeChat() {
  state.poll?.abort();
  state.chat = undefined;
  $("chat").hidden = true;
}

async function openChat(chat) {
  closeChat();
  state.chat = chat;
  $("chat").hidden = false;
  $("chat-title").textContent = chat.title ?? chat.first_name ?? String(chat.id);
  loadChats().catch(() => undefined);
  follow(new AbortController());
}

/** The person in a private chat is the chat; elsewhere the console plays a fixed user. */
const user = () => ({
  id: state.chat.type === "private" ? state.chat.id : 1,
  first_name: state.chat.first_name ?? "Console",
});

const chatPath = () => `/bots/${state.bot.id}/chats/${state.chat.id}`;

async function renderHistory(signal) {
  const { messages } = await api("GET", `${chatPath()}/messages?limit=1000`, undefined, signal);
  const box = $("messages");
  box.replaceChildren(...messages.map((m) => messageNode(m, state.bot.id, actions)));
  box.scrollTop = box.scrollHeight;
  return messages.at(-1)?.message_id ?? 0;
}

/**
 * Live updates: the history read is held (wait_ms) until the bot's next message, then the whole
 * history is redrawn (edits included). An edit alone wakes nothing: it shows within 10 s.
 */
async function follow(controller) {
  state.poll = controller;
  const { signal } = controller;
  await guarded("chat-error", async () => {
    let last = await renderHistory(signal);
    while (!signal.aborted) {
      const { messages } = await api(
        "GET",
        `${chatPath()}/messages?after_message_id=${last}&wait_ms=10000`,
        undefined,
        signal,
      );
      if (messages.length) last = await renderHistory(signal);
      await refreshPanels();
    }
  });
}

/** After the user acts: redraw now (the held read wakes only for the bot's messages). */
const redraw = () => renderHistory(state.poll?.signal).then(refreshPanels);

const actions = {
  press: (messageId, data) =>
    guarded("chat-error", async () => {
      const pressed = api("POST", `${chatPath()}/callback_queries`, {
        message_id: messageId,
        data,
        from: user(),
        wait_answer_ms: 5000,
      });
      const { answer } = await pressed;
      $("chat-answer").textContent = answer?.text ? `🔔 ${answer.text}` : "";
      await redraw();
    }),
  pay: (m) =>
    guarded("chat-error", async () => {
      const result = await api("POST", `/bots/${state.bot.id}/payments`, {
        chat_id: state.chat.id,
        message_id: m.message_id,
        user: user(),
      });
      if (result.status === "paid") state.paid.add(messageKey(m));
      else
        $("chat-error").textContent =
          `Payment ${result.status}${result.error_message ? `: ${result.error_message}` : ""}`;
      await redraw();
    }),
  decline: (m) => {
    state.declined.add(messageKey(m));
    redraw();
  },
  declined: (m) => state.declined.has(messageKey(m)),
  paid: (m) => state.paid.has(messageKey(m)),
};

function onSubmit(id, handler) {
  $(id).addEventListener("submit", (e) => {
    e.preventDefault();
    handler(Object.fromEntries(new FormData(e.target)), e.target);
  });
}

onSubmit("sign-in", ({ token: value }, form) => {
  token.set(value.trim());
  form.reset();
  signIn();
});
$("sign-out").addEventListener("click", () => signOut());

onSubmit("create-bot", ({ username, first_name }, form) =>
  guarded("bots-error", async () => {
    const bot = await api("POST", "/bots", { username, ...(first_name && { first_name }) });
    form.reset();
    await openBot({ id: String(bot.id), username: bot.username, first_name: bot.first_name });
    showToken(bot.username, bot.token);
  }),
);

$("rotate").addEventListener("click", () =>
  guarded("bots-error", async () => {
    if (!confirm(`Rotate @${state.bot.username}'s token? The old one stops working at once.`)) return;
    showToken(state.bot.username, (await api("POST", `/bots/${state.bot.id}/token`)).token);
  }),
);

$("delete").addEventListener("click", () =>
  guarded("bots-error", async () => {
    if (!confirm(`Delete @${state.bot.username} and all its data?`)) return;
    await api("DELETE", `/bots/${state.bot.id}`);
    closeChat();
    state.bot = undefined;
    $("bot").hidden = $("token-notice").hidden = true;
    await loadBots();
  }),
);

$("clear-faults").addEventListener("click", () =>
  guarded("bots-error", async () => {
    await api("DELETE", `/bots/${state.bot.id}/faults`);
    await refreshPanels();
  }),
);

onSubmit("new-chat", ({ id, first_name }, form) =>
  guarded("bots-error", async () => {
    const chat = await api("PUT", `/bots/${state.bot.id}/chats/${id}`, { type: "private", first_name });
    form.reset();
    await openChat(chat);
  }),
);

onSubmit("compose", ({ text }, form) =>
  guarded("chat-error", async () => {
    await api("POST", `${chatPath()}/messages`, { text, from: user() });
    form.reset();
    await redraw();
  }),
);

if (token.get()) signIn();
else signOut();
