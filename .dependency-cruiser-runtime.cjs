// Issue 29, item 1: the boundaries of what runs, second pass of `npm run lint:deps`. It follows
// only imports that survive compilation (type-only imports are erased), so a pure mapper may name
// a row type of src/db/schema.ts while the browser bundle and the schemas still load no database code.
const base = require("./.dependency-cruiser.cjs");

/** A database handle: kysely, the drivers, src/db/, or a service or repo (which hold one). */
const IMPURE = ["^src/db/", "\\.(service|repo)\\.ts$", "(^|/)node_modules/(kysely|pg|better-sqlite3)/"];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "edge-runs-no-database-code",
      severity: "error",
      comment:
        "HTTP schemas and the dashboard load only pure modules: nothing they import reaches a database " +
        "handle when it runs (one wrong import pulled Kysely into the browser graph).",
      from: { path: ["^src/http/schemas/", "^web/src/"] },
      to: { path: IMPURE, reachable: true },
    },
    {
      name: "web-runs-no-node",
      severity: "error",
      comment: "The dashboard runs in a browser: nothing it imports reaches a Node built-in when it runs.",
      from: { path: "^web/src/" },
      to: { path: "^(node:)?(crypto|fs|path|os|child_process|worker_threads|net|tls|http|https|stream|url|util|zlib|events|buffer)(/|$)", reachable: true },
    },
  ],
  options: { ...base.options, tsPreCompilationDeps: false },
};
