import { describe, expect, it } from 'vitest';
import { safeRedirect } from './LoginPage';

describe('the page after logging in', () => {
  it('is the page that asked for it when it is on this site, else /my', () => {
    expect(safeRedirect('/videos/v1?ep=e3')).toBe('/videos/v1?ep=e3');
    expect(safeRedirect(null)).toBe('/my');
    expect(safeRedirect('https://evil.example/')).toBe('/my');
    expect(safeRedirect('//evil.example/')).toBe('/my');
  });
});
