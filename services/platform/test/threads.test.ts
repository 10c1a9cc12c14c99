import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { startThread } from '../src/threads.ts';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

describe('startThread', () => {
  it('runs a TypeScript entry in a thread of its own, with the data it was given, under the test runner too', async () => {
    const thread = startThread(new URL('./fixtures/echo-thread.ts', import.meta.url), { data: { greeting: 'hello' } });
    try {
      thread.postMessage('thread');
      const [answer] = await once(thread, 'message');
      expect(answer).toBe('hello, thread');
    } finally {
      await thread.terminate();
    }
  });

  it('fails the thread, not the process, when its entry cannot be loaded', async () => {
    const thread = startThread(new URL('./fixtures/no-such-entry.ts', import.meta.url));
    const [error] = await once(thread, 'error');
    expect((error as NodeJS.ErrnoException).code).toBe('ERR_MODULE_NOT_FOUND');
  });
});
