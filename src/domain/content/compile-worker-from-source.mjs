// Starts the compile thread from the TypeScript sources (tests, tsx), as the render thread's
// starter does (src/sending/render-worker-from-source.mjs); the bundle runs compile-worker.js.
import { tsImport } from 'tsx/esm/api';

await tsImport('./compile-worker.ts', import.meta.url);
