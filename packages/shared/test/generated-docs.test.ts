import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { Errors, METHODS, type MethodSpec } from "@starpost/shared";
import { REFERENCE_GETTERS } from "../../../scripts/reference-getters.ts";
import {
  ARCHITECTURE_DOC,
  getterRows,
  REQUEST_FRONT_DOC,
  renderRequestFrontDoc,
  renderTestingDoc,
  TESTING_DOC,
  ERRORS_DOC,
  METHODS_DOC,
  packageMap,
  PLATFORM_DOC,
  renderErrorsDoc,
  renderMethodsDoc,
  renderPlatformDoc,
} from "../../../scripts/docs.ts";

const root = new URL("../../../", import.meta.url).pathname;

/** The code that answers clients: every service's src, packages/shared/src and packages/http/src, but the registry itself. */
function sourceFiles(): { path: string; source: ts.SourceFile }[] {
  return execFileSync("git", ["ls-files", "services/*/src/*", "packages/*/src/*"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((f) => f.endsWith(".ts") && f !== "packages/shared/src/errors.ts" && !f.startsWith("packages/testkit/"))
    .map((path) => ({
      path,
      source: ts.createSourceFile(path, readFileSync(`${root}${path}`, "utf8"), ts.ScriptTarget.Latest, true),
    }));
}

describe("the error registry", () => {
  it("is documented: docs/errors.md is generated from it and up to date", () => {
    expect(readFileSync(ERRORS_DOC, "utf8")).toBe(renderErrorsDoc());
  });

  it("has no entry the code never answers", () => {
    // A use is code that reads `Errors.<name>` (a comment or a string naming it is not).
    const used = new Set<string>();
    const visit = (node: ts.Node) => {
      if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "Errors")
        used.add(node.name.text);
      ts.forEachChild(node, visit);
    };
    for (const f of sourceFiles()) visit(f.source);
    expect(Object.keys(Errors).filter((name) => !used.has(name))).toEqual([]);
  });

  it("is the only place an error is built: no `bad(` or `new BotApiError(` anywhere else", () => {
    const outside: string[] = [];
    for (const { path, source } of sourceFiles()) {
      const visit = (node: ts.Node) => {
        const built =
          (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "bad") ||
          (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "BotApiError");
        if (built) outside.push(`${path}: ${node.getText(source)}`);
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(outside).toEqual([]);
  });

  it("follows the reference's description style", () => {
    for (const [name, make] of Object.entries(Errors)) {
      if (name === "injected") continue; // a scripted fault: its code and text are the caller's
      const err = (make as (...a: string[]) => { error_code: number; description: string })("x", "y");
      const prefix = {
        400: "Bad Request: ",
        401: "Unauthorized",
        403: "Forbidden: ",
        404: "Not Found",
        408: "Request Timeout",
        409: "Conflict: ",
        413: "Request Entity Too Large",
        415: "Unsupported Media Type: ",
        429: "Too Many Requests: ",
        500: "Internal Server Error",
        502: "Bad Gateway",
        503: "Service Unavailable: ",
      }[err.error_code];
      expect(prefix, name).toBeDefined();
      expect(err.description.startsWith(prefix!), `${name}: ${err.description}`).toBe(true);
    }
  });
});

describe("the method table", () => {
  it("keeps the reference's rule: a webhook answer never runs get*, setWebhook, deleteWebhook, close, logOut", () => {
    const refused = Object.entries(METHODS)
      .filter(([, m]: [string, MethodSpec]) => m.webhookReply === false)
      .map(([name]) => name);
    const expected = Object.keys(METHODS).filter(
      (name) => name.startsWith("get") || ["setWebhook", "deleteWebhook", "close", "logOut"].includes(name),
    );
    expect(refused.sort()).toEqual(expected.sort());
  });

  it("is documented: docs/methods.md is generated from it and up to date", () => {
    expect(readFileSync(METHODS_DOC, "utf8")).toBe(renderMethodsDoc());
  });
});

describe("the getter table (docs/request-front.md)", () => {
  it("is generated from the method schemas and the reference's getters, and up to date", () => {
    expect(readFileSync(REQUEST_FRONT_DOC, "utf8")).toBe(renderRequestFrontDoc());
  });

  it("has a reference row and a named reader for every declared parameter, and no row for an undeclared one", () => {
    const rows = getterRows();
    expect(rows.filter((r) => !r.getter || !r.line || !r.reader)).toEqual([]);
    const declared = new Set(rows.map((r) => `${r.method}.${r.param}`));
    const listed = Object.entries(REFERENCE_GETTERS).flatMap(([m, params]) =>
      Object.keys(params).map((p) => `${m}.${p}`),
    );
    expect(listed.filter((k) => !declared.has(k))).toEqual([]);
    expect(Object.keys(REFERENCE_GETTERS).sort()).toEqual(Object.keys(METHODS).sort());
  });
});

describe("docs/testing-bots.md", () => {
  it("shows the example bot repository's files as the test kit's test runs them (e2e/kit), every one of them", () => {
    const doc = readFileSync(TESTING_DOC, "utf8");
    expect(doc).toBe(renderTestingDoc(doc));
    const shown = [...doc.matchAll(/<!-- kit: (\S+) -->/g)].map((m) => m[1]).sort();
    expect(shown).toEqual(
      [
        "package.json",
        "shop.js",
        "test/shop.test.js",
        "test/shop.test.ts",
        "test/starpost.setup.ts",
        "tsconfig.json",
        "vitest.config.ts",
        ".github/workflows/test.yml",
      ].sort(),
    );
  });
});

describe("the platform route table", () => {
  it("is documented: docs/platform-api.md's route table is generated from it and up to date", () => {
    const doc = readFileSync(PLATFORM_DOC, "utf8");
    expect(doc).toBe(renderPlatformDoc(doc));
  });
});

describe("docs/architecture.md", () => {
  it("opens with the package map, generated from the packages: the same rows, each count within a tenth of the code's", () => {
    const doc = readFileSync(ARCHITECTURE_DOC, "utf8");
    const shown = [...doc.matchAll(/^\| `([^`]+)` \| (.*) \| ([\d,]+) \|$/gm)].map(([, dir, owns, lines]) => ({
      dir,
      owns,
      lines: Number(lines!.replaceAll(",", "")),
    }));
    const actual = packageMap();
    expect(shown.map(({ dir, owns }) => ({ dir, owns }))).toEqual(actual.map(({ dir, owns }) => ({ dir, owns })));
    for (const [i, p] of actual.entries())
      expect(Math.abs(shown[i]!.lines - p.lines), p.dir).toBeLessThanOrEqual(p.lines / 10);
    expect(doc.indexOf("## Packages and services")).toBeLessThan(doc.indexOf("## Three flows"));
  });

  it("has three flows, each a chain of file:function hops that exist, with no file visited twice", () => {
    const doc = readFileSync(ARCHITECTURE_DOC, "utf8");
    const section = doc.slice(doc.indexOf("## Three flows"), doc.indexOf("\n## ", doc.indexOf("## Three flows") + 1));
    const flows = section.split("\n### ").slice(1);
    expect(flows).toHaveLength(3);
    for (const flow of flows) {
      const hops = [...flow.matchAll(/^\d+\. `([^`:]+):([\w.]+)`/gm)].map(([, path, name]) => ({
        path: path!,
        name: name!,
      }));
      expect(hops.length, flow.split("\n")[0]).toBeGreaterThan(8);
      expect(new Set(hops.map((h) => h.path)).size, flow.split("\n")[0]).toBe(hops.length);
      for (const { path, name } of hops) {
        const text = readFileSync(`${root}${path}`, "utf8");
        for (const part of name.split("."))
          expect(new RegExp(`\\b${part}\\b`).test(text), `${path}:${name}`).toBe(true);
      }
    }
  });
});
