/**
 * docs/errors.md and docs/methods.md are generated from the error registry and the method table,
 * so they always say what the code does. `node --import tsx scripts/docs.ts` rewrites them; a test
 * fails when either is stale.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Errors, METHODS, type MethodSpec } from "@starpost/shared";
// The testkit module alone (not its index): the services' method tables.
import { METHOD_ROWS } from "../packages/testkit/src/method-rows.ts";

const root = fileURLToPath(new URL("../", import.meta.url));
export const ERRORS_DOC = `${root}docs/errors.md`;
export const METHODS_DOC = `${root}docs/methods.md`;

/** The parameter names of a registry factory, shown as placeholders (`<name>`). */
function placeholders(fn: (...args: never[]) => unknown): string[] {
  // `(a, b) => …` or, as some compilers print a single parameter, `a => …`.
  const m = /^(?:\(([^)]*)\)|([A-Za-z_$][\w$]*)\s*=>)/.exec(fn.toString());
  const head = m?.[1] ?? m?.[2] ?? "";
  return head
    .split(",")
    .map((p) => p.trim().split(/[:=\s]/)[0]!)
    .filter(Boolean)
    .map((p) => `<${p}>`);
}

export function renderErrorsDoc(): string {
  const rows = Object.entries(Errors).map(([name, make]) => {
    const err = (make as (...a: string[]) => { error_code: number; description: string })(...placeholders(make));
    return `| \`${name}\` | ${err.error_code} | ${err.description.replace(/\|/g, "\\|")} |`;
  });
  return [
    "# Errors",
    "",
    "Every error starpost answers, from the one registry `packages/shared/src/errors.ts` (this page is",
    "generated from it by `node --import tsx scripts/docs.ts`). The HTTP status equals `error_code`; the body",
    'is `{"ok":false,"error_code":N,"description":"..."}`, plus `parameters.retry_after` (and a',
    "`Retry-After` header) on 429. `<name>` stands for a value filled in at the time.",
    "",
    "| name | status | description |",
    "|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}

export function renderMethodsDoc(): string {
  const rows = Object.entries(METHODS).map(([name, m]: [string, MethodSpec]) => {
    const notes = [m.longPoll && "long poll", m.webhookReply === false && "not run from webhook answers"]
      .filter(Boolean)
      .join("; ");
    const { summary } = METHOD_ROWS[name as keyof typeof METHOD_ROWS];
    return `| \`${name}\` | ${m.service} | ${summary} | ${notes} |`;
  });
  return [
    "# Methods",
    "",
    "The Bot API methods starpost serves: the contract `packages/shared/src/methods.ts` names each",
    "method's owning service, and the owner's method table (`services/<service>/src/methods.ts`; updates:",
    "`webhook/methods.ts`) holds its row: the zod schema of its parameters (`src/params/`), this page's",
    "line and its handler (this page is generated from them by `node --import tsx scripts/docs.ts`).",
    "Call them as `GET` or `POST` `/bot<token>/<method>`; names are case-insensitive. The gateway answers",
    "its own methods and forwards the others to the owner, which validates the parameters with its row.",
    "Any other method: 404 `Not Found: method not found`.",
    "",
    "| method | service | what it does | notes |",
    "|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(ERRORS_DOC, renderErrorsDoc());
  writeFileSync(METHODS_DOC, renderMethodsDoc());
  process.stdout.write(`written ${ERRORS_DOC} and ${METHODS_DOC}\n`);
}
