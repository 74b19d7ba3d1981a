// Starts a bounce parse thread from the TypeScript sources (tests, tsx): a worker thread does not
// inherit the parent's loader, so it loads bounce-parse-worker.ts through tsx's API itself. The
// bundle (bin/sendwell) runs bounce-parse-worker.js directly instead.
import { tsImport } from 'tsx/esm/api';

const worker = await tsImport('./bounce-parse-worker.ts', import.meta.url);
export default worker.default;
