// How a chat looks to the person in it: text with its entities, inline keyboards, invoice
// cards, payment notes. Everything is built with DOM nodes and textContent (no HTML from data).

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  node.append(...children.flat().filter((c) => c !== undefined && c !== null && c !== false));
  return node;
}

/** Links only to http(s) and tg: (a bot's `javascript:` URL is shown as text, not followed). */
const safeHref = (url) => (/^(https?|tg):/i.test(url ?? "") ? url : undefined);

const TAGS = {
  bold: "b",
  italic: "i",
  underline: "u",
  strikethrough: "s",
  code: "code",
  pre: "pre",
  blockquote: "blockquote",
  expandable_blockquote: "blockquote",
};

function entityNode(e, text) {
  if (TAGS[e.type]) return el(TAGS[e.type]);
  if (e.type === "spoiler") return el("span", { class: "spoiler", title: "spoiler" });
  if (e.type === "text_link")
    return el("a", { href: safeHref(e.url), title: e.url, target: "_blank", rel: "noopener" });
  if (e.type === "url")
    return el("a", { href: /^https?:/i.test(text) ? text : `http://${text}`, target: "_blank", rel: "noopener" });
  if (["bot_command", "mention", "hashtag", "cashtag", "email"].includes(e.type)) return el("span", { class: e.type });
  return el("span");
}

/** Text with its entities (offsets in UTF-16 code units, as JavaScript strings count). */
export function richText(text = "", entities = []) {
  const sorted = [...entities].sort((a, b) => a.offset - b.offset || b.length - a.length);
  const build = (start, end, list) => {
    const out = [];
    let pos = start;
    for (let i = 0; i < list.length;) {
      const e = list[i++];
      if (e.offset < pos) continue;
      const stop = Math.min(e.offset + e.length, end);
      const inner = [];
      while (i < list.length && list[i].offset < stop) inner.push(list[i++]);
      out.push(text.slice(pos, e.offset));
      const node = entityNode(e, text.slice(e.offset, stop));
      node.append(...build(e.offset, stop, inner));
      out.push(node);
      pos = stop;
    }
    out.push(text.slice(pos, end));
    return out;
  };
  return build(0, text.length, sorted);
}

function keyboard(m, actions) {
  const markup = m.reply_markup;
  if (!markup?.inline_keyboard) return undefined;
  return el(
    "div",
    { class: "keyboard" },
    markup.inline_keyboard.map((row) =>
      el(
        "div",
        { class: "krow" },
        row.map((b) => {
          if (b.pay)
            return el(
              "button",
              {
                type: "button",
                class: "pay",
                disabled: actions.declined(m) || actions.paid(m),
                onclick: () => actions.pay(m),
              },
              b.text,
            );
          if (b.url)
            return el(
              "a",
              { href: safeHref(b.url), title: b.url, target: "_blank", rel: "noopener" },
              el("button", { type: "button", class: "secondary" }, b.text),
            );
          if (b.callback_data !== undefined)
            return el(
              "button",
              { type: "button", onclick: () => actions.press(m.message_id, b.callback_data) },
              b.text,
            );
          return el("button", { type: "button", disabled: true, title: "not simulated" }, b.text);
        }),
      ),
    ),
  );
}

const stars = (n) => `${n} ⭐`;
const time = (date) => new Date(date * 1000).toLocaleTimeString();

/** An invoice link in a text (createInvoiceLink's form). */
const INVOICE_LINK = /https:\/\/t\.me\/\$[A-Za-z0-9_-]+/;

/**
 * One message of the history; `actions` = {press(messageId, data), pay(m), payLink(link),
 * decline(m), declined(m), paid(m)}.
 */
export function messageNode(m, botId, actions) {
  if (m.successful_payment)
    return el(
      "div",
      { class: "msg service" },
      `Payment of ${stars(m.successful_payment.total_amount)} succeeded (${m.successful_payment.invoice_payload})`,
    );
  if (m.refunded_payment)
    return el(
      "div",
      { class: "msg service" },
      `${stars(m.refunded_payment.total_amount)} refunded (${m.refunded_payment.invoice_payload})`,
    );
  const fromBot = String(m.from?.id) === String(botId);
  const body = [];
  if (m.invoice) {
    const i = m.invoice;
    const payable = !m.reply_markup; // a keyboard of the bot's own replaces the card's buttons
    body.push(
      el(
        "div",
        { class: "invoice" },
        el("b", {}, i.title),
        el("div", {}, i.description),
        el("div", { class: "price" }, i.currency === "XTR" ? stars(i.total_amount) : `${i.total_amount} ${i.currency}`),
        actions.paid(m) && el("div", { class: "paid" }, "Paid ✓"),
        actions.declined(m) && el("div", { class: "meta" }, "You declined this invoice"),
        payable &&
          !actions.declined(m) &&
          !actions.paid(m) &&
          el(
            "div",
            { class: "row" },
            el(
              "button",
              { type: "button", class: "pay", onclick: () => actions.pay(m) },
              `Pay ${stars(i.total_amount)}`,
            ),
            el("button", { type: "button", class: "secondary", onclick: () => actions.decline(m) }, "Decline"),
          ),
      ),
    );
  } else {
    body.push(el("div", { class: "text" }, richText(m.text ?? m.caption ?? "", m.entities ?? m.caption_entities)));
    const link = !fromBot ? undefined : INVOICE_LINK.exec(m.text ?? "")?.[0];
    if (link)
      body.push(
        el("button", { type: "button", class: "pay pay-link", onclick: () => actions.payLink(link) }, "Pay the link"),
      );
  }
  body.push(keyboard(m, actions));
  body.push(el("div", { class: "meta" }, `#${m.message_id} ${time(m.date)}${m.edit_date ? " · edited" : ""}`));
  return el("div", { class: `msg ${fromBot ? "bot" : "user"}`, "data-id": m.message_id }, body);
}
