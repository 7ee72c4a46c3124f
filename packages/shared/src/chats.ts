/** A Chat as stored per bot: the fields the Bot API shows in Message.chat. */
export interface Chat {
  id: number;
  type: "private" | "group" | "supergroup" | "channel";
  title?: string;
  username?: string;
  first_name?: string;
  last_name?: string;
}

/** Chat keys in the order the official server prints them. */
export function chatJson(c: Chat): Chat {
  const out: Record<string, unknown> = { id: c.id };
  if (c.type === "private") {
    if (c.first_name !== undefined) out.first_name = c.first_name;
    if (c.last_name !== undefined) out.last_name = c.last_name;
    if (c.username !== undefined) out.username = c.username;
  } else {
    if (c.title !== undefined) out.title = c.title;
    if (c.username !== undefined) out.username = c.username;
  }
  out.type = c.type;
  return out as unknown as Chat;
}
