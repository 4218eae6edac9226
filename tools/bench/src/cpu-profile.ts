/** A V8 .cpuprofile: a call tree, and which node was on top at each sample. */
export interface CpuProfile {
  readonly nodes: readonly {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  readonly samples: readonly number[];
}

export interface Frame {
  readonly name: string;
  /** The package or area the function lives in: ours by folder, a dependency by package name, or node. */
  readonly area: string;
}

/** Where a script URL belongs: a workspace package, a dependency, or Node itself. */
export function areaOf(url: string): string {
  if (!url) return '(V8 / native)';
  if (url.startsWith('node:')) return 'node';
  const dependency = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dependency) return dependency[1]!;
  const ours = /\/(packages\/(?:platform|stock|sales)\/[^/]+|packages\/[^/]+|tools\/[^/]+)\//.exec(url);
  return ours ? ours[1]! : url.replace(/^file:\/\//, '');
}

function frameOf(node: CpuProfile['nodes'][number]): Frame {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.split('/').pop() ?? '';
  return { name: `${functionName || '(anonymous)'}${file ? ` ${file}:${lineNumber + 1}` : ''}`, area: areaOf(url) };
}

/** Samples per stack, root first, idle and GC kept as their own frames. */
export function stacks(profile: CpuProfile): Map<string, { frames: Frame[]; samples: number }> {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const counts = new Map<number, number>();
  for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
  const result = new Map<string, { frames: Frame[]; samples: number }>();
  for (const [id, samples] of counts) {
    const frames: Frame[] = [];
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const node = byId.get(current)!;
      if (node.callFrame.functionName === '(root)') break;
      frames.unshift(frameOf(node));
    }
    const key = frames.map((f) => f.name).join(';');
    const entry = result.get(key) ?? { frames, samples: 0 };
    entry.samples += samples;
    result.set(key, entry);
  }
  return result;
}

/** Share of samples by the area of the frame on top (self time), idle excluded. */
export function selfTimeByArea(profile: CpuProfile): { area: string; share: number }[] {
  const totals = new Map<string, number>();
  let busy = 0;
  for (const { frames, samples } of stacks(profile).values()) {
    const top = frames[frames.length - 1];
    if (!top || top.name.startsWith('(idle)')) continue;
    busy += samples;
    const area = top.name.startsWith('(garbage collector)') ? '(garbage collector)' : top.area;
    totals.set(area, (totals.get(area) ?? 0) + samples);
  }
  return [...totals].map(([area, samples]) => ({ area, share: samples / busy })).sort((a, b) => b.share - a.share);
}

/** Share of busy samples in which a frame of each area is anywhere on the stack (inclusive time). */
export function inclusiveTimeByArea(profile: CpuProfile): { area: string; share: number }[] {
  const totals = new Map<string, number>();
  let busy = 0;
  for (const { frames, samples } of stacks(profile).values()) {
    const top = frames[frames.length - 1];
    if (!top || top.name.startsWith('(idle)')) continue;
    busy += samples;
    for (const area of new Set(frames.map((f) => f.area))) totals.set(area, (totals.get(area) ?? 0) + samples);
  }
  return [...totals].map(([area, samples]) => ({ area, share: samples / busy })).sort((a, b) => b.share - a.share);
}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A flame graph (root at the bottom) of the busy samples, one colour per area of the code, as a standalone SVG. */
export function flameGraphSvg(profile: CpuProfile, title: string): string {
  interface Cell {
    name: string;
    area: string;
    samples: number;
    children: Map<string, Cell>;
  }
  const root: Cell = { name: 'all', area: '', samples: 0, children: new Map() };
  for (const { frames, samples } of stacks(profile).values()) {
    if (frames[frames.length - 1]?.name.startsWith('(idle)')) continue;
    root.samples += samples;
    let cell = root;
    for (const frame of frames) {
      let next = cell.children.get(frame.name);
      if (!next)
        cell.children.set(frame.name, (next = { name: frame.name, area: frame.area, samples: 0, children: new Map() }));
      next.samples += samples;
      cell = next;
    }
  }
  const width = 1200;
  const rowHeight = 16;
  const palette = [
    '#e8743b',
    '#4e79a7',
    '#59a14f',
    '#edc948',
    '#b07aa1',
    '#76b7b2',
    '#ff9da7',
    '#9c755f',
    '#bab0ac',
    '#f28e2b',
    '#8cd17d',
    '#d37295',
  ];
  const colours = new Map<string, string>();
  const colour = (area: string) => {
    if (!colours.has(area)) colours.set(area, palette[colours.size % palette.length]!);
    return colours.get(area)!;
  };
  let depth = 0;
  const rects: string[] = [];
  const draw = (cell: Cell, x: number, level: number) => {
    const w = (cell.samples / root.samples) * width;
    if (w < 0.5) return;
    depth = Math.max(depth, level);
    rects.push(
      `<g><title>${escape(cell.name)} (${escape(cell.area)}): ${((100 * cell.samples) / root.samples).toFixed(1)} %</title><rect x="${x.toFixed(1)}" y="LEVEL${level}" width="${w.toFixed(1)}" height="${rowHeight - 1}" fill="${colour(cell.area)}"/>${
        w > 60
          ? `<text x="${(x + 3).toFixed(1)}" y="TEXT${level}" font-size="10">${escape(cell.name.slice(0, Math.floor(w / 6)))}</text>`
          : ''
      }</g>`,
    );
    let childX = x;
    for (const child of [...cell.children.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      draw(child, childX, level + 1);
      childX += (child.samples / root.samples) * width;
    }
  };
  draw(root, 0, 0);
  const top = 30;
  const graphHeight = (depth + 1) * rowHeight;
  const legendY = top + graphHeight + 20;
  const areas = [...colours.keys()];
  const body = rects
    .join('\n')
    .replace(/y="LEVEL(\d+)"/g, (_m, l: string) => `y="${top + graphHeight - (Number(l) + 1) * rowHeight}"`)
    .replace(/y="TEXT(\d+)"/g, (_m, l: string) => `y="${top + graphHeight - (Number(l) + 1) * rowHeight + 11}"`);
  const legend = areas.map(
    (area, i) =>
      `<rect x="${10 + (i % 4) * 300}" y="${legendY + Math.floor(i / 4) * 16}" width="10" height="10" fill="${colour(area)}"/><text x="${24 + (i % 4) * 300}" y="${legendY + 9 + Math.floor(i / 4) * 16}" font-size="11">${escape(area)}</text>`,
  );
  const height = legendY + Math.ceil(areas.length / 4) * 16 + 10;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif"><rect width="100%" height="100%" fill="white"/><text x="10" y="18" font-size="13" font-weight="bold">${escape(title)}</text>\n${body}\n${legend.join('\n')}\n</svg>\n`;
}
