import { describe, expect, it } from 'vitest';
import { arrivedHit, line, tokenOf } from '../src/pixel-hits.ts';

// A buffered hit is one string of lines (pixel-hits.ts): no field may move the fields after it.
describe('a buffered statics.png hit', () => {
  const fields = {
    token: 'token-1',
    at: 1_700_000_000_000,
    address: '203.0.113.9',
    query: 'event=page_view',
    userAgent: 'Mozilla/5.0',
    referrerToken: '',
    fbclid: 'fb-1',
    ttclid: '',
    traceparent: '',
  };

  it('keeps a field as it came, cut to its bound, and leaves out one holding a line break or the separator of stored hits', () => {
    expect(line('abcdef', 3)).toBe('abc');
    expect(line(['a', 'b'], 10)).toBe('');
    expect(line(undefined, 10)).toBe('');
    expect(line('x\nevent=forged', 100)).toBe('');
    expect(line('x\u001eforged', 100)).toBe('');
  });

  it('reads its token from the first line, and none from a hit without one', () => {
    expect(tokenOf(arrivedHit(fields))).toBe('token-1');
    expect(tokenOf(arrivedHit({ ...fields, token: '' }))).toBeNull();
    expect(tokenOf(arrivedHit({ ...fields, token: 'bad\u0001token' }))).toBeNull();
  });

  it('is one line per field, whatever the fields hold', () => {
    const hit = arrivedHit({ ...fields, userAgent: line('agent\ninjected', 100) });
    expect(hit.split('\n')).toEqual(['token-1', '1700000000000', '203.0.113.9', 'event=page_view', '', '', 'fb-1', '', '']);
  });
});
