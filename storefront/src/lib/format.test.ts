import { describe, expect, it } from 'vitest';
import { formatClock, formatCount, formatDate, formatPrice, twoDigits } from './format';

describe('formatDate', () => {
  it('shows day, long month and year in US English', () => {
    expect(formatDate('2026-03-07T12:00:00Z')).toBe('March 7, 2026');
    expect(formatDate(new Date(2025, 11, 31))).toBe('December 31, 2025');
  });

  it('says "Invalid Date" for bad input', () => {
    expect(formatDate('not a date')).toBe('Invalid Date');
    expect(formatDate('')).toBe('Invalid Date');
    expect(formatDate(null)).toBe('Invalid Date');
    expect(formatDate(undefined)).toBe('Invalid Date');
  });
});

describe('twoDigits', () => {
  it('pads to two characters', () => {
    expect(twoDigits(5)).toBe('05');
    expect(twoDigits('7')).toBe('07');
    expect(twoDigits(42)).toBe('42');
  });

  it('truncates to two characters', () => {
    expect(twoDigits(123)).toBe('12');
    expect(twoDigits('2026')).toBe('20');
  });

  it('is "00" by default', () => {
    expect(twoDigits()).toBe('00');
    expect(twoDigits(null)).toBe('00');
    expect(twoDigits('')).toBe('00');
  });
});

describe('formatPrice', () => {
  it('divides minor units by 100 with two decimals, in USD', () => {
    expect(formatPrice(499)).toBe('$4.99');
    expect(formatPrice(1000, 'USD')).toBe('$10.00');
    expect(formatPrice(5)).toBe('$0.05');
    expect(formatPrice(0)).toBe('$0.00');
  });
});

describe('formatClock and formatCount', () => {
  it('show media positions and play counts compactly', () => {
    expect(formatClock(75)).toBe('01:15');
    expect(formatClock(3725)).toBe('1:02:05');
    expect(formatClock(Number.NaN)).toBe('00:00');
    expect(formatCount(950)).toBe('950');
    expect(formatCount(12_340)).toBe('12.3K');
    expect(formatCount(2_000_000)).toBe('2M');
  });
});
