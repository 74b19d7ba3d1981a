// Issue 29, item 1: the import graph's boundaries, checked in CI by `npm run lint:deps`.
// The layers are docs/CONTRACT.md's "The code: layers and boundaries":
//   floor       src/db/, src/config*.ts, src/paths.ts, and the shared kernel src/domain/shared/
//   domain      src/domain/<area>/: services, repos and each area's pure modules
//   workers     src/sending/, src/engagement/, src/automation/, src/feedback/, src/webhook-delivery/, ...
//   edge        src/http/ (routes and schemas), web/ (the dashboard)
// An area is a folder: src/domain/<area>/, or a folder directly under src/.

// No exceptions: every rule holds for the whole tree. The last loop between areas (contacts,
// lists and consent, through their services) went when the use cases spanning the three moved up
// to src/domain/audience/ and a list's member additions to consent's SubscriptionService.

/** The floor: what every layer may stand on. It imports nothing above itself. */
const FLOOR = "^src/(db/|config[^/]*\\.ts$|paths\\.ts$|domain/shared/)";

/**
 * What makes a module impure for the edge: a database handle (kysely, the drivers, src/db/), or a
 * service or repo (which hold one). A pure module is an area's type, limits, enums and mappers.
 */
const IMPURE = [
  "^src/db/",
  "\\.(service|repo)\\.ts$",
  "(^|/)node_modules/(kysely|pg|better-sqlite3)/",
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-area-cycle",
      severity: "error",
      comment:
        "Areas (src/domain/<area>/, src/<folder>/) form no loop: each can be read, tested and changed " +
        "with only the areas below it. Break a loop by moving the shared rule down or passing a port in.",
      scope: "folder",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "no-module-cycle",
      severity: "error",
      comment: "No module imports itself back through others.",
      from: { path: "^(src|web/src)/" },
      to: { circular: true },
    },
    {
      name: "floor-not-upward",
      severity: "error",
      comment:
        "The floor (db, configuration, paths, the shared kernel) imports nothing above it: a migration " +
        "must not change with today's domain rules, and config.ts is read before any feature.",
      from: { path: FLOOR },
      to: { path: "^src/", pathNot: FLOOR },
    },
    {
      name: "shared-kernel-pure",
      severity: "error",
      comment:
        "src/domain/shared/ is the kernel every layer may use, the floor included, so it imports " +
        "only itself and never touches the database.",
      from: { path: "^src/domain/shared/" },
      to: { path: ["^src/", "(^|/)node_modules/(kysely|pg|better-sqlite3)/"], pathNot: "^src/domain/shared/" },
    },
    {
      name: "domain-not-http",
      severity: "error",
      comment: "HTTP knowledge stops at src/http/: the domain throws typed errors, the error handler maps them.",
      from: { path: ["^src/domain/", "^src/db/"] },
      to: { path: ["^src/(http|app\\.ts|server\\.ts|cli\\.ts|deps\\.ts)", "(^|/)node_modules/(fastify|@fastify)/"] },
    },
    {
      name: "edge-imports-pure-modules",
      severity: "error",
      comment:
        "HTTP schemas and the dashboard import only each area's pure <noun>.ts (type, limits, enums, " +
        "mapper), never a service or a repo: one wrong import pulls Kysely into the browser graph.",
      from: { path: ["^src/http/schemas/", "^web/src/"] },
      to: { path: IMPURE },
    },
    {
      name: "edge-reaches-no-service",
      severity: "error",
      comment:
        "The same, transitively: a pure module a schema or the dashboard imports reaches no service " +
        "or repo through its own imports, not even for a type.",
      from: { path: ["^src/http/schemas/", "^web/src/"] },
      to: { path: "\\.(service|repo)\\.ts$", reachable: true },
    },
    // The runtime rules (nothing the edge imports reaches a database handle or, for the
    // dashboard, a Node built-in when it runs) are in .dependency-cruiser-runtime.cjs: they follow
    // only imports that survive compilation, since a mapper may name a row type of src/db/schema.ts.
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Tests and benchmarks may reach anything; the rules are about the product's modules.
    exclude: { path: ["\\.test\\.tsx?$", "^src/.*/test-helpers?/"] },
    // Type-only imports count: a loop of types is a loop of meaning, and the dashboard's
    // type-only import of a service still ties the browser graph to it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json"],
      mainFields: ["module", "main", "types", "typings"],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
