import { createHash } from "node:crypto";
import { IDEMPOTENCY_LIFETIME_MS, ok, type Chat } from "@starpost/shared";
import { appendUpdatesOnce, updateKind, type UpdateSink } from "@starpost/update-log";
import type { Outcome } from "../outcomes.ts";

export const MAX_UPDATES_PER_CALL = 1000;

/** The bot's log and, for a webhook bot, the delivery queues (appendUpdates schedules the drain). */
export interface IngestDeps extends UpdateSink {
  /** counts updates dropped at creation, by reason. */
  onDropped: (reason: string) => void;
}

type Checked = { kind: string; payload: Record<string, unknown> };
type UpdateRefusal =
  | { outcome: "update_not_object" | "update_id_given" | "update_kind_count" }
  | { outcome: "update_kind_unknown" | "update_kind_never_produced" | "update_kind_not_object"; kind: string };

function check(update: unknown): ({ outcome: "checked" } & Checked) | UpdateRefusal {
  if (typeof update !== "object" || update === null || Array.isArray(update)) {
    return { outcome: "update_not_object" };
  }
  const names = Object.keys(update);
  if (names.includes("update_id")) return { outcome: "update_id_given" };
  if (names.length !== 1) return { outcome: "update_kind_count" };
  const name = names[0]!;
  const kind = updateKind(name);
  if (!kind) return { outcome: "update_kind_unknown", kind: name };
  if (!kind.produced) return { outcome: "update_kind_never_produced", kind: name };
  const payload = (update as Record<string, unknown>)[name];
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    return { outcome: "update_kind_not_object", kind: name };
  }
  return { outcome: "checked", kind: name, payload: payload as Record<string, unknown> };
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
 * bad update in a batch changes nothing and a good batch costs one round trip. With an
 * `idempotencyKey` a repeat (a platform retrying after a lost answer) answers the first call's
 * result and appends nothing; the key with other updates is refused.
 */
export async function ingestUpdates(
  deps: IngestDeps,
  botId: string,
  body: unknown,
  idempotencyKey?: string,
): Promise<
  Outcome<unknown, UpdateRefusal | { outcome: "too_many_updates" | "bot_not_found" | "idempotency_key_reused" }>
> {
  const batch = Array.isArray(body);
  const updates = batch ? (body as unknown[]) : [body];
  if (updates.length > MAX_UPDATES_PER_CALL) return { outcome: "too_many_updates" };
  const checked: Checked[] = [];
  for (const u of updates) {
    const c = check(u);
    if (c.outcome !== "checked") return c;
    checked.push({ kind: c.kind, payload: c.payload });
  }

  const chats = new Map<number, Chat>();
  const users = new Map<number, { id: number }>();
  for (const c of checked) collectParties(c, chats, users);
  const appended = await appendUpdatesOnce(
    deps,
    botId,
    checked,
    { chats: [...chats.values()], users: [...users.values()] },
    idempotencyKey === undefined
      ? undefined
      : {
          key: idempotencyKey,
          fingerprint: createHash("sha256").update(JSON.stringify(body)).digest("base64url"),
          lifetimeMs: IDEMPOTENCY_LIFETIME_MS,
        },
  );
  if (appended.outcome !== "appended") return appended;
  const answers = appended.results.map((r) => {
    if (r.outcome === "appended") return { update_id: r.update_id };
    // A repeat's drops were counted by the first call.
    if (!appended.repeat) deps.onDropped(r.reason);
    return { update_id: null, dropped: r.reason };
  });
  return ok(batch ? answers : answers[0]);
}
