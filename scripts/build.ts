/**
 * `pnpm run build`: the production build. Each service's src/main.ts becomes one ES module,
 * dist/<service>.mjs, with the workspace packages and every npm dependency inlined, so the image
 * needs nothing but `node` and dist/. dist/healthcheck.mjs is the image's HEALTHCHECK. The Lua
 * scripts the services load at start are copied beside the bundles (their names are unique), and
 * the gateway's console files into dist/console/. dist/starpost.mjs is the `starpost` command
 * (packages/cli/src/main.ts; `npm start` runs `starpost start`), which runs the service bundles.
 * Tests and the benchmarks (with BENCH_FROM_SOURCE=true) run the TypeScript sources.
 *
 * `build.ts --package <dir>` builds the same into <dir>/dist and copies docker-compose.yml and
 * the Dockerfile beside it (the starter reads the services' settings from them): the contents of
 * the @starpost/cli tarball (its `prepack`).
 */
import { build } from "esbuild";
import { copyFileSync, cpSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));
const LUA_DIRS = [
  "packages/runtime/src/lua",
  "packages/update-log/src/lua",
  "services/invoices/src/lua",
  "services/updates/src/lua",
  "services/webhook-worker/src/lua",
];

/** Builds into `dist` (emptied first); the services bundled and the Lua scripts copied. */
export async function buildDist(dist = join(REPO_ROOT, "dist")): Promise<{ services: string[]; lua: string[] }> {
  const services = readdirSync(join(REPO_ROOT, "services"));
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(dist, { recursive: true });
  await build({
    entryPoints: [
      ...services.map((s) => ({ in: join(REPO_ROOT, "services", s, "src/main.ts"), out: s })),
      { in: join(REPO_ROOT, "scripts/healthcheck.ts"), out: "healthcheck" },
      { in: join(REPO_ROOT, "packages/cli/src/main.ts"), out: "starpost" },
    ],
    outdir: dist,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Bundled CommonJS dependencies call require() for node's built-in modules.
    banner: {
      js: 'import { createRequire as __spCreateRequire } from "node:module"; const require = __spCreateRequire(import.meta.url);',
    },
    legalComments: "none",
    // Every process holds its bundle's source in its heap (V8 compiles functions lazily from it),
    // and two bytes a character if one comment has a non-Latin-1 character: without comments and
    // whitespace it is a third of that, ASCII (esbuild escapes the rest), one byte a character.
    // Identifiers stay as they are: libraries read err.constructor.name (pino's err.type, error
    // classes' names), and esbuild's keepNames would cost more heap than short names save.
    minifyWhitespace: true,
    minifySyntax: true,
    // Short lines still: node prints the source line of an uncaught error.
    lineLimit: 160,
    logLevel: "warning",
  });
  const lua: string[] = [];
  for (const dir of LUA_DIRS) {
    for (const file of readdirSync(join(REPO_ROOT, dir)).filter((f) => f.endsWith(".lua"))) {
      if (lua.includes(file))
        throw new Error(`build: two Lua scripts are named ${file}; dist/ holds them side by side`);
      lua.push(file);
      copyFileSync(join(REPO_ROOT, dir, file), join(dist, file));
    }
  }
  // The gateway's console: static files read beside the bundle (dist/console/).
  cpSync(join(REPO_ROOT, "services/gateway/src/console"), join(dist, "console"), { recursive: true });
  return { services, lua };
}

/** The files of a package that runs the stack: `<dir>/dist` and the two files the starter reads. */
async function buildPackage(dir: string) {
  const built = await buildDist(join(dir, "dist"));
  for (const file of ["docker-compose.yml", "Dockerfile"]) copyFileSync(join(REPO_ROOT, file), join(dir, file));
  return built;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const into = process.argv[2] === "--package" ? process.argv[3] : undefined;
  const { services, lua } = into ? await buildPackage(into) : await buildDist();
  console.log(
    `starpost: built ${services.map((s) => `dist/${s}.mjs`).join(", ")}, dist/healthcheck.mjs, dist/starpost.mjs and ${lua.length} Lua scripts${into ? ` in ${into}` : ""}`,
  );
}
