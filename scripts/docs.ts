/**
 * docs/errors.md is generated from the error registry, so the list of errors a user can meet is
 * always the code's. `node --import tsx scripts/docs.ts` rewrites it; a test fails when it is stale.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Errors } from "@starpost/shared";

const root = fileURLToPath(new URL("../", import.meta.url));
export const ERRORS_DOC = `${root}docs/errors.md`;

/** The parameter names of a registry factory, shown as placeholders (`<name>`). */
function placeholders(fn: (...args: never[]) => unknown): string[] {
  // `(a, b) => …` or, as some compilers print a single parameter, `a => …`.
  const m = /^(?:\(([^)]*)\)|([A-Za-z_$][\w$]*)\s*=>)/.exec(fn.toString());
  const head = m?.[1] ?? m?.[2] ?? "";
  return head.split(",").map((p) => p.trim().split(/[:=\s]/)[0]!).filter(Boolean).map((p) => `<${p}>`);
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

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(ERRORS_DOC, renderErrorsDoc());
  process.stdout.write(`written ${ERRORS_DOC}\n`);
}
