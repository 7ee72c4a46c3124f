import { z } from "zod";
import { Errors } from "../errors.ts";
import { answering, fail, type FieldError } from "./issues.ts";

// Bodies of the platform API (operator and simulation side).

/** A chat id in a platform path: an integer, negative for groups and channels. */
export const CHAT_ID = /^-?\d{1,16}$/;
export const isChatId = (s: string | undefined): s is string => s !== undefined && CHAT_ID.test(s);

/**
 * A bot's tag: a label given at creation (a test run's id, say) by which bots are listed and
 * deleted together.
 */
const TAG = z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/);

export const CreateBotBody = answering(
  z.object({
    username: z
      .string()
      .regex(/^[A-Za-z0-9_]{5,32}$/)
      .refine((u) => u.toLowerCase().endsWith("bot")),
    first_name: z.string().min(1).max(64).optional(),
    token: z.string().optional(),
    tag: TAG.optional(),
  }),
  { username: () => Errors.usernameInvalid(), tag: () => Errors.tagInvalid() },
);
export type CreateBotBody = z.infer<typeof CreateBotBody>;

/** `GET /bots?tag=`: only the bots with that tag. */
export const BotListQuery = answering(z.object({ tag: TAG.optional() }), { tag: () => Errors.tagInvalid() });
export type BotListQuery = z.infer<typeof BotListQuery>;
/** `DELETE /bots?tag=`: the tag is required (there is no way to delete every bot at once). */
export const BotTagQuery = answering(z.object({ tag: TAG }), { tag: () => Errors.tagInvalid() });
export type BotTagQuery = z.infer<typeof BotTagQuery>;

const name = z.string().min(1).max(128);
export const ChatBody = answering(
  z.object({
    type: z.enum(["private", "group", "supergroup", "channel"]),
    title: name.optional(),
    username: z
      .string()
      .regex(/^[A-Za-z0-9_]{4,32}$/)
      .optional(),
    first_name: name.optional(),
    last_name: name.optional(),
  }),
  {
    type: () => Errors.chatTypeInvalid(),
    username: (issue) => (issue.code === "invalid_format" ? Errors.chatUsernameInvalid() : undefined),
  },
);
export type ChatBody = z.infer<typeof ChatBody>;

export const PaymentBody = z.object({
  chat_id: z.union([z.number().int(), z.string().min(1)]),
  message_id: z.number().int().positive(),
  user: z.looseObject({ id: z.number().int().positive(), first_name: z.string().min(1) }),
  /** a repeat with the same key returns the first attempt's outcome instead of paying again. */
  idempotency_key: z.string().min(1).max(64).optional(),
});
export type PaymentBody = z.infer<typeof PaymentBody>;

/** A platform idempotency_key (a payment's, a push's) is remembered this long for repeats. */
export const IDEMPOTENCY_LIFETIME_MS = 86_400_000;

/** `POST …/updates?idempotency_key=…`: a repeat with the same key answers the first call's result and appends nothing. */
export const PushQuery = z.object({ idempotency_key: PaymentBody.shape.idempotency_key });
export type PushQuery = z.infer<typeof PushQuery>;

export const LinkPaymentBody = answering(
  z.object({
    link: z.string().min(1).max(64),
    user: PaymentBody.shape.user,
    idempotency_key: PaymentBody.shape.idempotency_key,
  }),
  { link: () => Errors.linkInvalid() },
);
export type LinkPaymentBody = z.infer<typeof LinkPaymentBody>;

/** A user as the platform describes one (the sender of a message or a press). */
const PlatformUser = z.looseObject({
  id: z.number().int().positive(),
  first_name: z.string().min(1).max(64).optional(),
  last_name: z.string().min(1).max(64).optional(),
  username: z.string().min(1).max(32).optional(),
  language_code: z.string().min(1).max(35).optional(),
  is_premium: z.boolean().optional(),
});
export type PlatformUser = z.infer<typeof PlatformUser>;

export const UserMessageBody = answering(
  z.object({
    text: z.string().refine((t) => t.length > 0 && [...t].length <= 4096),
    from: PlatformUser.optional(),
  }),
  { text: () => Errors.userTextInvalid() },
);
export type UserMessageBody = z.infer<typeof UserMessageBody>;

/** Callback answers are waited for at most 15 s; history reads at most 30 s. */
export const MAX_WAIT_ANSWER_MS = 15_000;
export const MAX_HISTORY_WAIT_MS = 30_000;

export const CallbackQueryBody = answering(
  z.object({
    message_id: z.number().int().positive(),
    data: z.string(),
    from: PlatformUser.optional(),
    wait_answer_ms: z.number().int().min(0).max(MAX_WAIT_ANSWER_MS).optional(),
  }),
  {
    message_id: () => Errors.platformMessageIdInvalid(),
    data: () => Errors.callbackDataInvalid(),
    // Only too big has its own text; anything else is the generic invalid parameter.
    wait_answer_ms: (issue) => (issue.code === "too_big" ? Errors.waitAnswerInvalid(MAX_WAIT_ANSWER_MS) : undefined),
  },
);
export type CallbackQueryBody = z.infer<typeof CallbackQueryBody>;

type Ranges = Record<string, readonly [min: number, max: number]>;

const int = (min: number, max: number) => z.number().int().min(min).max(max).optional();
/** A query string's integer: digits, or absent. */
const queryInt = (min: number, max: number) =>
  z.preprocess(
    (v) => (v === undefined || v === "" ? undefined : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v),
    int(min, max),
  );

/** Optional integer fields, each from its min to its max: JSON numbers in a body, digits in a query. */
function integers<R extends Ranges>(ranges: R, from: "body"): { [K in keyof R]: ReturnType<typeof int> };
function integers<R extends Ranges>(ranges: R, from: "query"): { [K in keyof R]: ReturnType<typeof queryInt> };
function integers(ranges: Ranges, from: "body" | "query") {
  const read = from === "body" ? int : queryInt;
  return Object.fromEntries(Object.entries(ranges).map(([field, [min, max]]) => [field, read(min, max)]));
}

/** The error of each integer field: `<name> must be an integer <min>-<max>`. */
const rangeErrors = <R extends Ranges>(ranges: R) =>
  Object.fromEntries(
    Object.entries(ranges).map(([field, [min, max]]) => [field, () => Errors.platformIntegerInvalid(field, min, max)]),
  ) as unknown as { [K in keyof R]: FieldError };

const HISTORY = {
  after_message_id: [0, Number.MAX_SAFE_INTEGER],
  limit: [1, 1000],
  wait_ms: [0, MAX_HISTORY_WAIT_MS],
} as const;
export const HistoryQuery = answering(z.object(integers(HISTORY, "query")), rangeErrors(HISTORY));
export type HistoryQuery = z.infer<typeof HistoryQuery>;

const FAULT = { error_code: [400, 599], retry_after: [1, 3600], delay_ms: [0, 60_000], times: [1, 1000] } as const;
const faultInts = integers(FAULT, "body");
export const FaultBody = answering(
  z
    .object({
      method: z.string().min(1),
      /** method "delivery": the next `times` deliveries (webhook or getUpdates) reach the bot twice. */
      duplicate: z.literal(true).optional(),
      error_code: faultInts.error_code,
      description: z.string().min(1).max(1024).optional(),
      retry_after: faultInts.retry_after,
      delay_ms: faultInts.delay_ms,
      times: faultInts.times,
    })
    .superRefine((f, ctx) => {
      if ((f.method === "delivery") !== (f.duplicate === true)) fail(ctx, Errors.faultDuplicateInvalid());
      else if (f.duplicate) {
        if (f.error_code !== undefined || f.delay_ms !== undefined || f.description !== undefined)
          fail(ctx, Errors.faultDuplicateInvalid());
      } else if (f.error_code === undefined && f.delay_ms === undefined) fail(ctx, Errors.faultEmpty());
      else if (f.retry_after !== undefined && f.error_code !== 429) fail(ctx, Errors.faultRetryAfterAlone());
    }),
  {
    method: () => Errors.faultMethodInvalid(),
    duplicate: () => Errors.faultDuplicateInvalid(),
    description: () => Errors.faultDescriptionInvalid(),
    ...rangeErrors(FAULT),
  },
);
export type FaultBody = z.infer<typeof FaultBody>;

const REQUESTS = { limit: [1, 100] } as const;
export const RequestsQuery = answering(z.object(integers(REQUESTS, "query")), rangeErrors(REQUESTS));

/** Entries kept per bot (activity.lua's ACTIVITY_KEPT): the newest; older ones are trimmed. */
export const ACTIVITY_SIZE = 1000;
/** What the activity log records, each entry written by the step that does it (activity.lua). */
export const ACTIVITY_KINDS = [
  "call",
  "update",
  "attempt",
  "confirm",
  "drop",
  "payment",
  "refund",
  "renewal",
  "replay",
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];
/** An activity read is held at most this long. */
export const MAX_ACTIVITY_WAIT_MS = 30_000;

const ACTIVITY = {
  after: [0, Number.MAX_SAFE_INTEGER],
  limit: [0, ACTIVITY_SIZE],
  wait_ms: [0, MAX_ACTIVITY_WAIT_MS],
} as const;
export const ActivityQuery = answering(
  z.object({
    kinds: z
      .string()
      .transform((s) => s.split(","))
      .pipe(z.array(z.enum(ACTIVITY_KINDS)))
      .optional(),
    ...integers(ACTIVITY, "query"),
  }),
  {
    kinds: () => Errors.activityKindsInvalid(ACTIVITY_KINDS.join(", ")),
    ...rangeErrors(ACTIVITY),
  },
);
export type ActivityQuery = z.infer<typeof ActivityQuery>;

const STARS = { offset: [0, Number.MAX_SAFE_INTEGER], limit: [1, 100] } as const;
export const StarsQuery = answering(z.object(integers(STARS, "query")), rangeErrors(STARS));
export type StarsQuery = z.infer<typeof StarsQuery>;

/**
 * What POST …/updates takes, for the description: one Update without update_id (one kind key) or
 * up to 1000. The ingest checks each update further (known kind, one that starpost produces).
 */
const NewUpdate = z.record(z.string(), z.looseObject({}));
export const UpdatesBody = z.union([NewUpdate, z.array(NewUpdate).max(1000)]);

/** The bot's clock moves forward only, at most about ten years per call. */
export const MAX_CLOCK_ADVANCE_S = 315_360_000;
/** `POST /bots/:botId/replays`: the update_id of an update the bot already confirmed. */
export const ReplayBody = answering(z.object({ update_id: z.number().int().positive() }), {
  update_id: () => Errors.platformIntegerInvalid("update_id", 1, Number.MAX_SAFE_INTEGER),
});
export type ReplayBody = z.infer<typeof ReplayBody>;

export const ClockBody = answering(z.object({ advance_seconds: z.number().int().min(0).max(MAX_CLOCK_ADVANCE_S) }), {
  advance_seconds: () => Errors.platformIntegerInvalid("advance_seconds", 0, MAX_CLOCK_ADVANCE_S),
});
export type ClockBody = z.infer<typeof ClockBody>;

/** A user's Stars: a whole number, or null for unlimited (the default). */
export const UserStarsBody = answering(z.object({ amount: z.number().int().min(0).max(1e12).nullable() }), {
  amount: () => Errors.userStarsInvalid(),
});
export type UserStarsBody = z.infer<typeof UserStarsBody>;

/** A scripted fault as the platform API shows it: a bot's next `times` calls of `method` fail or wait. */
export interface Fault {
  id: number;
  method: string;
  duplicate?: true;
  error_code?: number;
  description?: string;
  retry_after?: number;
  delay_ms?: number;
  /** calls left. */
  times: number;
}
