import { z } from "zod";

export const GetMeParams = z.object({});
export const LogOutParams = z.object({});
export const CloseParams = z.object({});
