import {
  appendUpdates,
  Errors,
  failure,
  success,
  updateKind,
  type BotApiError,
  type Chat,
  type MethodOutcome,
  type UpdateSink,
} from "@starpost/shared";

export const MAX_UPDATES_PER_CALL = 1000;

/** The bot's log and, for a webhook bot, the delivery queues (appendUpdates schedules the drain). */
export interface IngestDeps extends UpdateSink {
  /** counts updates dropped at creation, by reason. */
  onDropped: (reason: string) => void;
}

type Checked = { kind: string; payload: Record<string, unknown> };

function check(update: unknown): Checked | BotApiError {
  if (typeof update !== "object" || update === null || Array.isArray(update)) {
    return Errors.updateInvalid("an Update object is expected");
  }
  const names = Object.keys(update);
  if (names.includes("update_id")) return Errors.updateInvalid("update_id is assigned by starpost");
  if (names.length !== 1) return Errors.updateInvalid("exactly one update kind is expected");
  const name = names[0]!;
  const kind = updateKind(name);
  if (!kind) return Errors.updateKindUnknown(name);
  if (!kind.produced) return Errors.updateKindNeverProduced(name);
  const payload = (update as Record<string, unknown>)[name];
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    return Errors.updateInvalid(`"${name}" must be an object`);
  }
  return { kind: name, payload: payload as Record<string, unknown> };
}

/** Chats (`chat` objects) and users (`from`, `user`) met anywhere in a payload. */
function collectParties(value: unknown, chats: Map<number, Chat>, users: Map<number, { id: number }>, depth = 0) {
  if (typeof value !== "object" || value === null || depth > 8) return;
  for (const [key, v] of Object.entries(value)) {
    if (typeof v !== "object" || v === null) continue;
    const o = v as Record<string, unknown>;
    if (key === "chat" && Number.isSafeInteger(o.id) && typeof o.type === "string")
      chats.set(o.id as number, o as unknown as Chat);
    else if ((key === "from" || key === "user") && Number.isSafeInteger(o.id) && o.is_bot !== true)
      users.set(o.id as number, o as { id: number });
    collectParties(v, chats, users, depth + 1);
  }
}

/**
 * `POST /platform/v1/bots/:botId/updates`: one Update or an array of up to 1000. Everything is
 * checked before anything is written, then registration and the appends are one Lua call, so a
 * bad update in a batch changes nothing and a good batch costs one round trip.
 */
export async function ingestUpdates(deps: IngestDeps, botId: string, body: unknown): Promise<MethodOutcome> {
  const batch = Array.isArray(body);
  const updates = batch ? (body as unknown[]) : [body];
  if (updates.length > MAX_UPDATES_PER_CALL) return failure(Errors.tooManyUpdates());
  const checked: Checked[] = [];
  for (const u of updates) {
    const c = check(u);
    if (!("kind" in c)) return failure(c);
    checked.push(c);
  }

  const chats = new Map<number, Chat>();
  const users = new Map<number, { id: number }>();
  for (const c of checked) collectParties(c, chats, users);
  const results = await appendUpdates(deps, botId, checked, {
    chats: [...chats.values()],
    users: [...users.values()],
  });
  if (!results) return failure(Errors.botNotFound());
  const answers = results.map((r) => {
    if (r.outcome === "appended") return { update_id: r.update_id };
    deps.onDropped(r.reason);
    return { update_id: null, dropped: r.reason };
  });
  return success(batch ? answers : answers[0]);
}
