import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { REPO_ROOT } from "@starpost/testkit";

// A module exports what the running code uses: nothing only a test (or the testkit) reads. Test
// support lives in packages/testkit.
it("no module of the shared or http package or a service exports something only tests use", () => {
  const files = execFileSync("git", ["ls-files", "*.ts"], { cwd: REPO_ROOT, encoding: "utf8" })
    .split("\n")
    .filter((f) => f && !f.includes("/test/") && !f.startsWith("e2e/") && !f.startsWith("packages/testkit/"));
  const text = new Map(files.map((f) => [f, readFileSync(`${REPO_ROOT}${f}`, "utf8")]));
  const checked = files.filter((f) => /^(packages\/(shared|http)|services\/[^/]+)\/src\//.test(f));
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
