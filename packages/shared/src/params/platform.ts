import { z } from "zod";
import { Errors } from "../errors.ts";

// Bodies of the platform API (operator and simulation side).

/** A bot id in a platform path: positive digits, as generated ids and token ids are. */
export const isBotId = (s: string | undefined): s is string => s !== undefined && /^\d{1,16}$/.test(s);
/** A chat id in a platform path: an integer, negative for groups and channels. */
export const isChatId = (s: string | undefined): s is string => s !== undefined && /^-?\d{1,16}$/.test(s);

export const CreateBotBody = z.object({
  username: z
    .string({ error: () => Errors.usernameInvalid().description })
    .regex(/^[A-Za-z0-9_]{5,32}$/, { error: () => Errors.usernameInvalid().description })
    .refine((u) => u.toLowerCase().endsWith("bot"), { error: () => Errors.usernameInvalid().description }),
  first_name: z.string().min(1).max(64).optional(),
  token: z.string().optional(),
});
export type CreateBotBody = z.infer<typeof CreateBotBody>;

const name = z.string().min(1).max(128);
export const ChatBody = z.object({
  type: z.enum(["private", "group", "supergroup", "channel"], {
    error: () => Errors.chatInvalid('type must be "private", "group", "supergroup" or "channel"').description,
  }),
  title: name.optional(),
  username: z
    .string()
    .regex(/^[A-Za-z0-9_]{4,32}$/, { error: () => Errors.chatInvalid("bad username").description })
    .optional(),
  first_name: name.optional(),
  last_name: name.optional(),
});
export type ChatBody = z.infer<typeof ChatBody>;

export const PaymentBody = z.object({
  chat_id: z.union([z.number().int(), z.string().min(1)]),
  message_id: z.number().int().positive(),
  user: z.looseObject({ id: z.number().int().positive(), first_name: z.string().min(1) }),
  /** a repeat with the same key returns the first attempt's outcome instead of paying again. */
  idempotency_key: z.string().min(1).max(64).optional(),
});
export type PaymentBody = z.infer<typeof PaymentBody>;

export const LinkPaymentBody = z.object({
  link: z
    .string({ error: () => Errors.platformParamInvalid("link must be an invoice link").description })
    .min(1)
    .max(64),
  user: PaymentBody.shape.user,
  idempotency_key: PaymentBody.shape.idempotency_key,
});
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

export const UserMessageBody = z.object({
  text: z
    .string({ error: () => Errors.platformParamInvalid("text must be a string of 1-4096 characters").description })
    .refine((t) => t.length > 0 && [...t].length <= 4096, {
      error: () => Errors.platformParamInvalid("text must be a string of 1-4096 characters").description,
    }),
  from: PlatformUser.optional(),
});
export type UserMessageBody = z.infer<typeof UserMessageBody>;

/** Callback answers are waited for at most 15 s; history reads at most 30 s. */
export const MAX_WAIT_ANSWER_MS = 15_000;
export const MAX_HISTORY_WAIT_MS = 30_000;

export const CallbackQueryBody = z.object({
  message_id: z
    .number({ error: () => Errors.platformParamInvalid("message_id must be a positive integer").description })
    .int()
    .positive(),
  data: z.string({ error: () => Errors.platformParamInvalid("data must be a string").description }),
  from: PlatformUser.optional(),
  wait_answer_ms: z
    .number()
    .int()
    .min(0)
    .max(MAX_WAIT_ANSWER_MS, {
      error: () => Errors.platformParamInvalid(`wait_answer_ms must be 0-${MAX_WAIT_ANSWER_MS}`).description,
    })
    .optional(),
});
export type CallbackQueryBody = z.infer<typeof CallbackQueryBody>;

const queryInt = (name: string, min: number, max: number) =>
  z.preprocess(
    (v) => (v === undefined || v === "" ? undefined : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v),
    z
      .number({ error: () => Errors.platformParamInvalid(`${name} must be an integer ${min}-${max}`).description })
      .int()
      .min(min, { error: () => Errors.platformParamInvalid(`${name} must be an integer ${min}-${max}`).description })
      .max(max, { error: () => Errors.platformParamInvalid(`${name} must be an integer ${min}-${max}`).description })
      .optional(),
  );

export const HistoryQuery = z.object({
  after_message_id: queryInt("after_message_id", 0, Number.MAX_SAFE_INTEGER),
  limit: queryInt("limit", 1, 1000),
  wait_ms: queryInt("wait_ms", 0, MAX_HISTORY_WAIT_MS),
});
export type HistoryQuery = z.infer<typeof HistoryQuery>;

const invalid = (why: string) => ({ error: () => Errors.platformParamInvalid(why).description });

export const FaultBody = z
  .object({
    method: z
      .string(invalid('method must be a method name or "*"'))
      .min(1, invalid('method must be a method name or "*"')),
    error_code: z
      .number(invalid("error_code must be an integer 400-599"))
      .int(invalid("error_code must be an integer 400-599"))
      .min(400, invalid("error_code must be an integer 400-599"))
      .max(599, invalid("error_code must be an integer 400-599"))
      .optional(),
    description: z
      .string(invalid("description must be a string of 1-1024 characters"))
      .min(1, invalid("description must be a string of 1-1024 characters"))
      .max(1024, invalid("description must be a string of 1-1024 characters"))
      .optional(),
    retry_after: z
      .number(invalid("retry_after must be an integer 1-3600"))
      .int(invalid("retry_after must be an integer 1-3600"))
      .min(1, invalid("retry_after must be an integer 1-3600"))
      .max(3600, invalid("retry_after must be an integer 1-3600"))
      .optional(),
    delay_ms: z
      .number(invalid("delay_ms must be an integer 0-60000"))
      .int(invalid("delay_ms must be an integer 0-60000"))
      .min(0, invalid("delay_ms must be an integer 0-60000"))
      .max(60_000, invalid("delay_ms must be an integer 0-60000"))
      .optional(),
    times: z
      .number(invalid("times must be an integer 1-1000"))
      .int(invalid("times must be an integer 1-1000"))
      .min(1, invalid("times must be an integer 1-1000"))
      .max(1000, invalid("times must be an integer 1-1000"))
      .optional(),
  })
  .refine(
    (f) => f.error_code !== undefined || f.delay_ms !== undefined,
    invalid("a fault needs error_code, delay_ms or both"),
  )
  .refine((f) => f.retry_after === undefined || f.error_code === 429, invalid("retry_after goes with error_code 429"));
export type FaultBody = z.infer<typeof FaultBody>;

export const RequestsQuery = z.object({ limit: queryInt("limit", 1, 100) });

export const StarsQuery = z.object({
  offset: queryInt("offset", 0, Number.MAX_SAFE_INTEGER),
  limit: queryInt("limit", 1, 100),
});
export type StarsQuery = z.infer<typeof StarsQuery>;

/**
 * What POST …/updates takes, for the description: one Update without update_id (one kind key) or
 * up to 1000. The ingest checks each update further (known kind, one that starpost produces).
 */
const NewUpdate = z.record(z.string(), z.looseObject({}));
export const UpdatesBody = z.union([NewUpdate, z.array(NewUpdate).max(1000)]);

/** The bot's clock moves forward only, at most about ten years per call. */
export const MAX_CLOCK_ADVANCE_S = 315_360_000;
export const ClockBody = z.object({
  advance_seconds: z
    .number(invalid(`advance_seconds must be an integer 0-${MAX_CLOCK_ADVANCE_S}`))
    .int(invalid(`advance_seconds must be an integer 0-${MAX_CLOCK_ADVANCE_S}`))
    .min(0, invalid(`advance_seconds must be an integer 0-${MAX_CLOCK_ADVANCE_S}`))
    .max(MAX_CLOCK_ADVANCE_S, invalid(`advance_seconds must be an integer 0-${MAX_CLOCK_ADVANCE_S}`)),
});
export type ClockBody = z.infer<typeof ClockBody>;

/** A user's Stars: a whole number, or null for unlimited (the default). */
export const UserStarsBody = z.object({
  amount: z
    .number(invalid("amount must be an integer 0-1000000000000 or null"))
    .int(invalid("amount must be an integer 0-1000000000000 or null"))
    .min(0, invalid("amount must be an integer 0-1000000000000 or null"))
    .max(1e12, invalid("amount must be an integer 0-1000000000000 or null"))
    .nullable(),
});
export type UserStarsBody = z.infer<typeof UserStarsBody>;
