// Starts the render thread from the TypeScript sources (tests, tsx): a worker thread does not
// inherit the parent's loader, so it loads render-worker.ts through tsx's API itself. The bundle
// (bin/sendwell) runs render-worker.js directly instead.
import { tsImport } from 'tsx/esm/api';

await tsImport('./render-worker.ts', import.meta.url);
