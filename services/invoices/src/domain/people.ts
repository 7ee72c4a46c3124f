import { chatJson, type Chat } from "@starpost/shared";

/** A person as the platform describes one: at least an id; the other User fields when known. */
export interface Person {
  id: number;
  first_name?: string;
  last_name?: unknown;
  username?: unknown;
  language_code?: unknown;
  is_premium?: unknown;
}

const USER_EXTRAS = ["last_name", "username", "language_code", "is_premium"] as const;

/**
 * The person as a Bot API User, as JsonUser writes one (Client.cpp at 01a3679, line 464): the
 * optional strings only when non-empty, is_premium only when true (`User <id>` when nameless).
 */
export function asUser(p: Person): Record<string, unknown> {
  const out: Record<string, unknown> = { id: p.id, is_bot: false, first_name: p.first_name ?? `User ${p.id}` };
  for (const k of USER_EXTRAS) {
    const v = p[k];
    if (k === "is_premium" ? v === true : typeof v === "string" && v !== "") out[k] = v;
  }
  return out;
}

/** The person's private chat with the bot, as a Bot API Chat. */
export function privateChatOf(p: Person): Chat {
  return chatJson({
    id: p.id,
    type: "private",
    first_name: p.first_name ?? `User ${p.id}`,
    ...(p.last_name ? { last_name: p.last_name as string } : {}),
    ...(p.username ? { username: p.username as string } : {}),
  });
}
