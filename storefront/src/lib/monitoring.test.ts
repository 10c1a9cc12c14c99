import { afterEach, describe, expect, it, vi } from 'vitest';
import { MONITORING, monitoringEnvironment } from './monitoring';

afterEach(() => vi.restoreAllMocks());

describe('error reporting and performance monitoring', () => {
  it('reports to the sandbox environment on .cc hosts and to production elsewhere', () => {
    expect(monitoringEnvironment('shorts.example.cc')).toBe('sandbox');
    expect(monitoringEnvironment('www.cliffhanger.cc.example.com')).toBe('sandbox');
    expect(monitoringEnvironment('www.cliffhanger.com')).toBe('production');
  });

  it('traces three page loads in ten', () => {
    expect(MONITORING.traceSampleRate).toBe(0.3);
  });
});
