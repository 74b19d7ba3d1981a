import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface HotSpot {
  name: string;
  where: string;
  selfMs: number;
  percent: number;
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) return url.slice(nm + 'node_modules/'.length);
  const src = url.indexOf('/src/');
  if (src !== -1) return url.slice(src + 1);
  return url.replace(/^file:\/\//, '') || '(native)';
}

function packageOf(url: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.includes('/src/')) return 'sendwell src';
  if (url.startsWith('node:')) return 'node internals';
  return url === '' ? '(native / GC)' : 'other';
}

/** Self time per function and per package in a .cpuprofile (`node --cpu-prof`), largest first. */
export function summariseProfile(file: string, top = 25): { totalMs: number; functions: HotSpot[]; packages: HotSpot[] } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const fn = new Map<string, HotSpot>();
  const pkg = new Map<string, HotSpot>();
  let totalUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    const { functionName, url, lineNumber } = node.callFrame;
    // Idle is time the thread waited for work, not time it spent.
    if (functionName === '(idle)') continue;
    totalUs += us;
    const name = functionName || '(anonymous)';
    const where = url ? `${shortUrl(url)}:${lineNumber + 1}` : '';
    const key = `${name} ${where}`;
    const f = fn.get(key) ?? { name, where, selfMs: 0, percent: 0 };
    f.selfMs += us / 1000;
    fn.set(key, f);
    const p = packageOf(url);
    const g = pkg.get(p) ?? { name: p, where: '', selfMs: 0, percent: 0 };
    g.selfMs += us / 1000;
    pkg.set(p, g);
  }
  const rank = (m: Map<string, HotSpot>, n: number) =>
    [...m.values()]
      .map((h) => ({ ...h, selfMs: Math.round(h.selfMs), percent: Math.round((h.selfMs / (totalUs / 1000)) * 1000) / 10 }))
      .sort((a, b) => b.selfMs - a.selfMs)
      .slice(0, n);
  return { totalMs: Math.round(totalUs / 1000), functions: rank(fn, top), packages: rank(pkg, 15) };
}

export function profilesIn(dir: string): string[] {
  try {
    return readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(dir, f));
  } catch {
    return [];
  }
}
