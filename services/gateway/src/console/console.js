// The starpost console: the bots, a bot's chats as the person in them sees them, and what the
// bot did (webhook, request log, faults, Stars). Everything goes through the platform API.
import { api, ApiError, token } from "./api.js";
import { el, messageNode } from "./render.js";

const $ = (id) => document.getElementById(id);
/**
 * declined: invoice messages this tab declined (`bot:chat:message`; declining sends nothing);
 * paid: the open chat's invoice payments as the server counts them (message id -> payments).
 */
const state = { bot: undefined, chat: undefined, poll: undefined, declined: new Set(), paid: {} };
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

/** A call's parameters, cut to a line (the whole JSON on hover). */
function params(p) {
  const json = JSON.stringify(p);
  return el("td", { class: "params", title: json }, json.length > 90 ? `${json.slice(0, 90)}…` : json);
}

const row = (...cells) => el("tr", {}, ...cells.map((c) => (c instanceof Node ? c : el("td", {}, String(c)))));
const userName = (id, users) => users.find((u) => u.id === id)?.first_name ?? String(id);

/**
 * The open bot as the server knows it: its webhook and recent attempts (the activity log), Stars,
 * clock, subscriptions, users' Stars, faults and request log.
 */
async function refreshPanels() {
  const id = state.bot?.id;
  if (!id) return;
  const [webhook, stars, { faults }, { requests }, { entries }, { subscriptions }, { users }, clock] =
    await Promise.all([
      api("GET", `/bots/${id}/webhook`),
      api("GET", `/bots/${id}/stars`),
      api("GET", `/bots/${id}/faults`),
      api("GET", `/bots/${id}/requests?limit=20`),
      api("GET", `/bots/${id}/activity?kinds=attempt&limit=1000`),
      api("GET", `/bots/${id}/subscriptions`),
      api("GET", `/bots/${id}/users`),
      api("GET", `/bots/${id}/clock`),
    ]);
  if (state.bot?.id !== id) return;
  $("attempts").tBodies[0].replaceChildren(
    ...entries
      .slice(-10)
      .toReversed()
      .map((a) =>
        row(
          new Date(a.time).toLocaleTimeString(),
          a.update_ids.join(", "),
          a.error ?? (a.status ? `${a.status} OK` : "ok"),
          a.duration_ms,
        ),
      ),
  );
  $("clock").textContent = `— ${date(clock.date)}`;
  $("subscriptions").tBodies[0].replaceChildren(
    ...subscriptions.map((s) =>
      row(
        userName(s.user_id, users),
        `${s.amount} ⭐ / ${Math.round(s.period / 86400)} d`,
        s.canceled && s.state === "active" ? "active (canceled)" : s.state,
        s.state === "active" ? date(s.expiration_date) : "—",
        s.renewals,
      ),
    ),
  );
  $("users").tBodies[0].replaceChildren(
    ...users.map((u) => row(`${u.first_name} (${u.id})`, u.stars === null ? "unlimited" : `${u.stars} ⭐`)),
  );
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
        row(
          new Date(r.date * 1000).toLocaleTimeString(),
          r.method,
          r.ok ? "200" : `${r.error_code} ${r.description ?? ""}`,
          r.duration_ms,
          params(r.params),
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
  const { messages, paid } = await api("GET", `${chatPath()}/messages?limit=1000`, undefined, signal);
  state.paid = paid;
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
    settle(
      api("POST", `/bots/${state.bot.id}/payments`, { chat_id: state.chat.id, message_id: m.message_id, user: user() }),
    ),
  payLink: (link) => settle(api("POST", `/bots/${state.bot.id}/invoice_links/pay`, { link, user: user() })),
  decline: (m) => {
    state.declined.add(messageKey(m));
    redraw();
  },
  declined: (m) => state.declined.has(messageKey(m)),
  paid: (m) => (state.paid[m.message_id] ?? 0) > 0,
};

/** A payment's outcome: anything but paid is said under the chat; then the chat and panels redraw. */
function settle(paying) {
  return guarded("chat-error", async () => {
    const result = await paying;
    if (result.status !== "paid")
      $("chat-error").textContent =
        `Payment ${result.status}${result.error_message ? `: ${result.error_message}` : ""}`;
    await redraw();
  });
}

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
    await openBot({ id: bot.id, username: bot.username, first_name: bot.first_name });
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

onSubmit("add-fault", ({ method, error_code, times }) =>
  guarded("bots-error", async () => {
    await api("POST", `/bots/${state.bot.id}/faults`, {
      method,
      ...(error_code && { error_code: Number(error_code) }),
      times: Number(times || 1),
    });
    await refreshPanels();
  }),
);

onSubmit("advance-clock", ({ days }) =>
  guarded("bots-error", async () => {
    const { renewals, ended } = await api("POST", `/bots/${state.bot.id}/clock`, {
      advance_seconds: Math.round(Number(days) * 86400),
    });
    $("bots-error").textContent = `${renewals} renewed, ${ended} ended`;
    await (state.chat ? redraw() : refreshPanels());
  }),
);

onSubmit("user-stars", ({ id, amount }, form) =>
  guarded("bots-error", async () => {
    await api("PUT", `/bots/${state.bot.id}/users/${id}/stars`, { amount: amount === "" ? null : Number(amount) });
    form.reset();
    await refreshPanels();
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
