import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface RevenueSeries {
  /** Days as Unix seconds (UTC midnight). */
  days: number[];
  gross: number[];
  net: number[];
}

/** Gross and net revenue per day as two lines (uPlot: a canvas chart of about 50 KB, 20 gzipped); resizes with its box. */
export function RevenueChart({ data, labels, label, format }: { data: RevenueSeries; labels: { day: string; gross: string; net: string }; label: string; format: (amount: number) => string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const width = () => Math.max(280, element.clientWidth);
    const chart = new uPlot(
      {
        width: width(),
        height: 280,
        series: [
          { label: labels.day },
          { label: labels.gross, stroke: '#e4134f', width: 2, value: (_u, value) => (value == null ? '—' : format(value)) },
          { label: labels.net, stroke: '#2f7de1', width: 2, dash: [6, 4], value: (_u, value) => (value == null ? '—' : format(value)) },
        ],
        axes: [{ stroke: '#b9b9c6', grid: { stroke: '#2a2a35' } }, { stroke: '#b9b9c6', grid: { stroke: '#2a2a35' }, size: 70, values: (_u, ticks) => ticks.map(format) }],
        scales: { x: { time: true } },
      },
      [data.days, data.gross, data.net],
      element,
    );
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => chart.setSize({ width: width(), height: 280 }));
    observer?.observe(element);
    return () => {
      observer?.disconnect();
      chart.destroy();
    };
  }, [data, labels, format]);
  return <div ref={box} className="console-chart" role="img" aria-label={label} data-testid="revenue-chart" />;
}
