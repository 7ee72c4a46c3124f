import { z } from "zod";
import { Errors } from "../errors.ts";

// Bodies of the platform API (operator and simulation side).

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
  username: z.string().regex(/^[A-Za-z0-9_]{4,32}$/, { error: () => Errors.chatInvalid("bad username").description }).optional(),
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
