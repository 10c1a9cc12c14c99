import { configure } from '@testing-library/react';
import { vi } from 'vitest';

// How long a test waits for what the page does next (a findBy* query, testing-library's waitFor and
// vi.waitFor): 10 s, not their 1 s defaults. A page's next state comes within milliseconds on an idle
// machine, but a suite runs beside the others, and on a busy machine a second is not enough: a test
// must fail because the page is wrong, never because the machine was slow.
const WAIT_MS = 10_000;
configure({ asyncUtilTimeout: WAIT_MS });
const waitFor = vi.waitFor.bind(vi);
vi.waitFor = ((callback, options) => waitFor(callback, typeof options === 'number' ? options : { timeout: WAIT_MS, ...options })) as typeof vi.waitFor;
