import { describe, expect, it } from 'vitest';
import { escapeXml, renderBarChart, renderChart } from '../../src/bench/svg.js';

describe('the hand-written SVG charts', () => {
  const chart = {
    title: 'Jobs <per> second & more',
    subtitle: 'a "quoted" machine',
    xLabel: 'workers',
    categories: ['1', '2', '4'],
    yLabel: 'jobs/s',
    scale: 'log' as const,
    panels: [
      {
        title: 'backlog 1,000',
        series: [
          { name: 'queue', values: [10, 20, null] },
          { name: 'raw', values: [100, 200, 400] },
        ],
      },
      { title: 'backlog 10,000', series: [{ name: 'queue', values: [9, 18, 30] }], references: [{ name: 'target', value: 50 }] },
    ],
  };

  it('draws a panel per backlog, a line and markers per series, and escapes every text', () => {
    const svg = renderChart(chart);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('<title>Jobs &lt;per&gt; second &amp; more</title>');
    expect(svg).toContain('a &quot;quoted&quot; machine');
    expect(svg.match(/<polyline /g)).toHaveLength(3);
    // Log ticks at the powers of ten around the values.
    for (const tick of ['>1<', '>10<', '>100<', '>1k<']) expect(svg).toContain(tick);
    expect(svg).toContain('>target<');
    expect(svg).not.toMatch(/NaN|undefined/);
  });

  it('draws a stacked bar per row with a legend entry per part', () => {
    const svg = renderBarChart({
      title: 'drill',
      subtitle: 's',
      parts: ['start-up', 'waits'],
      unit: 'ms',
      bars: [{ label: 'a<b', parts: [300, 200] }],
    });
    expect(svg.match(/<rect x=/g)?.length).toBe(2 + 2);
    expect(svg).toContain('a&lt;b: start-up 300 ms');
    expect(svg).not.toMatch(/NaN|undefined/);
    expect(escapeXml(`'&"`)).toBe('&#39;&amp;&quot;');
  });
});
