import { z } from "zod";
import { Errors } from "../errors.ts";

/**
 * Parameter types as the official server reads them: query strings and forms carry every value as
 * a string, JSON bodies carry either the JSON value or a JSON-encoded string. Each helper accepts
 * both. Error texts come from the error registry.
 */

const asString = (v: unknown) => (typeof v === "number" || typeof v === "boolean" ? String(v) : v);

/** A required string parameter; missing or empty gives `parameter "<name>" is required`. */
export const requiredString = (name: string) =>
  z.preprocess(
    asString,
    z.string({ error: () => Errors.paramRequired(name).description }).min(1, { error: () => Errors.paramRequired(name).description }),
  );

/** An optional string parameter ("" counts as absent, like the official server's empty check). */
export const optionalString = () => z.preprocess((v) => (v === "" || v === null ? undefined : asString(v)), z.string().optional());

/**
 * An integer read the forgiving way the official server reads clamped numbers: anything that is
 * not an integer becomes undefined (the default applies), never an error.
 */
export const looseInt = () =>
  z.preprocess((v) => {
    if (typeof v === "number") return Number.isFinite(v) ? Math.trunc(v) : undefined;
    if (typeof v === "string" && /^\s*[-+]?\d+/.test(v)) return Number.parseInt(v, 10);
    return undefined;
  }, z.number().optional());

/** A Boolean: true, "true", "1", "yes" (any case) are true; everything else is false. */
export const boolParam = () =>
  z.preprocess((v) => {
    if (v === undefined || v === null || v === "") return undefined;
    if (typeof v === "boolean") return v;
    if (typeof v === "number") return v !== 0;
    return ["true", "1", "yes"].includes(String(v).trim().toLowerCase());
  }, z.boolean().optional());

/** Parses a JSON-encoded string; objects and arrays from a JSON body pass as they are. */
export function fromJson(v: unknown): unknown {
  if (typeof v !== "string") return v;
  try {
    return JSON.parse(v);
  } catch {
    return INVALID_JSON;
  }
}
export const INVALID_JSON = Symbol("invalid JSON");
