/**
 * Messages a chat's history keeps (history.lua's HISTORY_KEPT): the newest; each new message
 * drops the one this many ids below it. A constant, like ACTIVITY_SIZE, since every writer and
 * every reader of a history must agree on it.
 */
export const CHAT_HISTORY_SIZE = 1000;

/** A Chat as stored per bot: the fields the Bot API shows in Message.chat. */
export interface Chat {
  id: number;
  type: "private" | "group" | "supergroup" | "channel";
  title?: string;
  username?: string;
  first_name?: string;
  last_name?: string;
}

/**
 * A Chat as JsonChat writes one in a Message (Client.cpp at 01a3679, line 1193): a private chat's
 * first_name and any other chat's title always (`User <id>` and `Chat <id>` when the platform gave
 * none), the optional strings only when non-empty, and a group's two fixed fields after its type.
 */
export function chatJson(c: Chat): Chat {
  const out: Record<string, unknown> = { id: c.id };
  if (c.type === "private") {
    out.first_name = c.first_name ?? `User ${c.id}`;
    if (c.last_name) out.last_name = c.last_name;
    if (c.username) out.username = c.username;
    out.type = c.type;
  } else if (c.type === "group") {
    out.title = c.title ?? `Chat ${c.id}`;
    out.type = c.type;
    out.all_members_are_administrators = false;
    out.accepted_gift_types = ACCEPTED_GIFT_TYPES;
  } else {
    out.title = c.title ?? `Chat ${c.id}`;
    if (c.username) out.username = c.username;
    out.type = c.type;
  }
  return out as unknown as Chat;
}

/** A group's accepted_gift_types: the reference writes all false for groups (line 1290). */
const ACCEPTED_GIFT_TYPES = {
  unlimited_gifts: false,
  limited_gifts: false,
  unique_gifts: false,
  premium_subscription: false,
  gifts_from_channels: false,
};
