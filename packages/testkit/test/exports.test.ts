import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect, it } from "vitest";
import { REPO_ROOT } from "@starpost/testkit";

// A module exports what the running code uses: nothing only a test (or the testkit) reads. Test
// support lives in packages/testkit.
it("no module of a package (testkit aside) or a service exports something only tests use", () => {
  const files = execFileSync("git", ["ls-files", "*.ts"], { cwd: REPO_ROOT, encoding: "utf8" })
    .split("\n")
    .filter((f) => f && !f.includes("/test/") && !f.startsWith("e2e/") && !f.startsWith("packages/testkit/"));
  const text = new Map(files.map((f) => [f, readFileSync(`${REPO_ROOT}${f}`, "utf8")]));
  const checked = files.filter((f) => /^(packages\/(shared|http|runtime|update-log)|services\/[^/]+)\/src\//.test(f));
  const unused: string[] = [];
  for (const file of checked) {
    for (const [, name] of text
      .get(file)!
      .matchAll(/^export (?:async )?(?:function|const|class|interface|type|enum) (\w+)/gm)) {
      const word = new RegExp(`\\b${name}\\b`);
      const every = new RegExp(`\\b${name}\\b`, "g");
      const used = [...text].some(([f, t]) => (f === file ? (t.match(every)?.length ?? 0) > 1 : word.test(t)));
      if (!used) unused.push(`${file}: ${name}`);
    }
  }
  expect(unused).toEqual([]);
});

// A package's modules import each other in one direction: no module reaches itself through its
// imports (type-only imports included), so each can be read before the ones that use it.
it("no circular imports between the modules of a package or a service", () => {
  const files = execFileSync("git", ["ls-files", "packages/*/src/*.ts", "services/*/src/*.ts"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  })
    .split("\n")
    .filter(Boolean);
  const imports = new Map(
    files.map((f) => [
      f,
      [...readFileSync(`${REPO_ROOT}${f}`, "utf8").matchAll(/^(?:import|export)\b[^;]*?from "(\.{1,2}\/[^"]+)"/gm)].map(
        ([, rel]) => join(dirname(f), rel!),
      ),
    ]),
  );
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (f: string, path: string[]) => {
    if (state.get(f) === "done") return;
    if (state.get(f) === "open") return void cycles.push([...path.slice(path.indexOf(f)), f].join(" -> "));
    state.set(f, "open");
    for (const next of imports.get(f) ?? []) visit(next, [...path, f]);
    state.set(f, "done");
  };
  for (const f of files) visit(f, []);
  expect(cycles).toEqual([]);
});
