// Starts a read process from the TypeScript sources (tests, tsx): a forked process does not get
// the parent's loader, so it loads read-worker.ts through tsx's API itself. The bundle
// (bin/sendwell) runs read-worker.js directly instead.
import { tsImport } from 'tsx/esm/api';

await tsImport('./read-worker.ts', import.meta.url);
