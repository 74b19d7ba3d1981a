/**
 * Issue 34 item 6: what a first preview of each gallery starter costs, idle and with both cores
 * busy, against the two time limits a preview passes: the compile thread's (COMPILE_TIME_LIMIT_MS,
 * MJML to HTML) and the render budget of one message (SEND_RENDER_BUDGET_MS, Liquid and the text
 * part). Each starter is measured in a fresh process, as a first preview meets a thread that has
 * loaded its libraries but run nothing yet (cold JIT): the compile, then the render of one message
 * (the window the render budget watches: CompiledCampaign.render), then a second, warm render.
 *
 *   node --import tsx bench/preview-budget.ts            the table (idle, then two busy loops)
 *   node --import tsx bench/preview-budget.ts --one KEY  one starter's figures as JSON (the child)
 */
import { execFileSync, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const KEYS = ['newsletter', 'announcement', 'product', 'welcome', 'event', 'plain'];
const RUNS = Number(process.env.PREVIEW_BENCH_RUNS ?? 3);

interface Figures {
  key: string;
  compileMs: number;
  compileCpuMs: number;
  prepareMs: number;
  firstRenderMs: number;
  firstRenderCpuMs: number;
  warmRenderMs: number;
}

async function one(key: string): Promise<Figures> {
  const { BUILTIN_SOURCES } = await import('../src/domain/templates/builtin-templates.ts');
  const { compileContent } = await import('../src/domain/content/compile-content.ts');
  const { CompiledCampaign } = await import('../src/sending/render.ts');
  const source = BUILTIN_SOURCES.find((s) => s.builtin_key === key)!;
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let t = performance.now();
  let c = cpu();
  const html = await compileContent({ format: 'mjml', body: source.body }, null, 'html');
  const compileMs = performance.now() - t;
  const compileCpuMs = cpu() - c;
  t = performance.now();
  const campaign = new CompiledCampaign({ subject: 'Hello {{ first_name }}', html, text: null, preheader: null }, { budgetMs: 600_000, maxPartBytes: 2 * 1024 * 1024 });
  const prepareMs = performance.now() - t;
  const contact = { email: 'ann@example.com', first_name: 'Ann', last_name: 'Example', phone: '', custom_fields: {} };
  const urls = { open: null, unsubscribe: '#', preferences: '#', trap: null, webview: '#', click: () => '#' };
  t = performance.now();
  c = cpu();
  campaign.render(contact, urls);
  const firstRenderMs = performance.now() - t;
  const firstRenderCpuMs = cpu() - c;
  t = performance.now();
  campaign.render(contact, urls);
  const warmRenderMs = performance.now() - t;
  return { key, compileMs, compileCpuMs, prepareMs, firstRenderMs, firstRenderCpuMs, warmRenderMs };
}

function child(key: string): Promise<Figures> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--one', key], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as Figures) : reject(new Error(`child ${key} exited ${code}`))));
  });
}

async function table(label: string): Promise<string[]> {
  const rows: string[] = [];
  const worst: Record<string, number> = { compile: 0, render: 0 };
  for (const key of KEYS) {
    const runs: Figures[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await child(key));
    const max = (f: (r: Figures) => number) => Math.max(...runs.map(f)).toFixed(0);
    const median = (f: (r: Figures) => number) => runs.map(f).sort((a, b) => a - b)[Math.floor(runs.length / 2)].toFixed(0);
    worst.compile = Math.max(worst.compile, ...runs.map((r) => r.compileMs));
    worst.render = Math.max(worst.render, ...runs.map((r) => r.firstRenderMs));
    rows.push(`| ${label} | ${key} | ${median((r) => r.compileMs)} (max ${max((r) => r.compileMs)}) | ${median((r) => r.compileCpuMs)} | ${median((r) => r.prepareMs)} (max ${max((r) => r.prepareMs)}) | ${median((r) => r.firstRenderMs)} (max ${max((r) => r.firstRenderMs)}) | ${median((r) => r.firstRenderCpuMs)} | ${median((r) => r.warmRenderMs)} |`);
  }
  rows.push(`| ${label} | **worst** | ${worst.compile.toFixed(0)} | | | ${worst.render.toFixed(0)} | | |`);
  return rows;
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--one');
  if (at >= 0) {
    process.stdout.write(JSON.stringify(await one(process.argv[at + 1])));
    return;
  }
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD']).toString().trim();
  const lines = [
    `Commit ${commit}, ${availableParallelism()} cores, Node ${process.version}, ${RUNS} fresh processes per starter and load; milliseconds, median (max).`,
    '',
    '| load | starter | cold compile, wall | its CPU | campaign prepared (outside the budget), wall | first render (the budget\'s window), wall | its CPU | warm render, wall |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...(await table('idle')),
  ];
  // Both cores busy: one spinning process per core, besides the measured one.
  const spinners = Array.from({ length: availableParallelism() }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
  try {
    lines.push(...(await table('both cores busy')));
  } finally {
    for (const s of spinners) s.kill();
  }
  console.log(lines.join('\n'));
}

await main();
