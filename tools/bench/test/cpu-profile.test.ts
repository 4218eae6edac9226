import { expect } from 'chai';
import { areaOf, type CpuProfile, flameGraphSvg, inclusiveTimeByArea, selfTimeByArea } from '../src/cpu-profile';

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url, lineNumber: 0 },
  children,
});

/** root → handler (ours) → stringify (a dependency); root → (idle). Samples: 3 in stringify, 1 in handler, 4 idle. */
const profile: CpuProfile = {
  nodes: [
    frame(1, '(root)', '', [2, 4]),
    frame(2, 'handler', 'file:///work/main/packages/stock/http-koa/src/products-router.ts', [3]),
    frame(3, 'stringify', 'file:///work/main/node_modules/.pnpm/fast-json@1.0.0/node_modules/fast-json/index.js'),
    frame(4, '(idle)', ''),
  ],
  samples: [3, 3, 3, 2, 4, 4, 4, 4],
};

describe('the CPU profile summary', () => {
  it('names the area of a script: a workspace package, a dependency, or node', () => {
    expect(areaOf('file:///work/main/packages/platform/http/src/serve.ts')).to.equal('packages/platform/http');
    expect(
      areaOf(
        'file:///work/main/node_modules/.pnpm/@koa+router@15.7.0_koa@3.3.0/node_modules/@koa/router/dist/index.mjs',
      ),
    ).to.equal('@koa/router');
    expect(areaOf('node:internal/http')).to.equal('node');
  });

  it('shares busy samples by area, self and inclusive, leaving idle out', () => {
    expect(selfTimeByArea(profile)).to.deep.equal([
      { area: 'fast-json', share: 0.75 },
      { area: 'packages/stock/http-koa', share: 0.25 },
    ]);
    expect(inclusiveTimeByArea(profile)).to.deep.equal([
      { area: 'packages/stock/http-koa', share: 1 },
      { area: 'fast-json', share: 0.75 },
    ]);
  });

  it('draws a flame graph whose boxes carry their share', () => {
    const svg = flameGraphSvg(profile, 'test');
    expect(svg).to.match(/^<svg /);
    expect(svg).to.contain('stringify index.js:1 (fast-json): 75.0 %');
    expect(svg).not.to.contain('(idle)');
  });
});
