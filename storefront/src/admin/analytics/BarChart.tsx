import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface BarSeries {
  label: string;
  values: number[];
}

const COLORS = ['#e4134f', '#2f7de1'];
// One series is a bar on its category; two stand side by side, the first left of it and the second right.
const ALIGN = [[0], [1, -1]] as const;

/**
 * Bars per category (a funnel's steps, campaigns, rungs) with uPlot's bar paths, one or two series
 * side by side; categories are the x axis' labels. Resizes with its box. The numbers themselves are
 * in the table each chart comes with: the chart is an image with its label.
 */
export function BarChart({ categories, series, label, format }: { categories: string[]; series: BarSeries[]; label: string; format: (value: number) => string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const width = () => Math.max(280, element.clientWidth);
    const align = ALIGN[series.length - 1] ?? ALIGN[0];
    const chart = new uPlot(
      {
        width: width(),
        height: 260,
        series: [
          { label: '' },
          ...series.map((entry, index) => ({
            label: entry.label,
            stroke: COLORS[index % COLORS.length],
            fill: `${COLORS[index % COLORS.length]}cc`,
            paths: uPlot.paths.bars!({ size: [0.8 / series.length, 80], align: align[index] ?? 0 }),
            points: { show: false },
            value: (_u: uPlot, value: number | null) => (value == null ? '—' : format(value)),
          })),
        ],
        scales: { x: { time: false, range: [-0.5, categories.length - 0.5] } },
        axes: [
          { stroke: '#b9b9c6', grid: { show: false }, splits: () => categories.map((_, index) => index), values: (_u, ticks) => ticks.map((tick) => categories[tick] ?? '') },
          { stroke: '#b9b9c6', grid: { stroke: '#2a2a35' }, size: 70, values: (_u, ticks) => ticks.map(format) },
        ],
        legend: { show: series.length > 1 },
        cursor: { points: { show: false } },
      },
      [categories.map((_, index) => index), ...series.map((entry) => entry.values)],
      element,
    );
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => chart.setSize({ width: width(), height: 260 }));
    observer?.observe(element);
    return () => {
      observer?.disconnect();
      chart.destroy();
    };
  }, [categories, series, format]);
  return <div ref={box} className="console-chart console-chart--bars" role="img" aria-label={label} />;
}
