// As in production (src/main.ts): OpenTelemetry's instrumentations are registered before a test
// file imports express, pg, ioredis or kafkajs, which they patch as they load.
import { createRequire } from 'node:module';
import '@cliffhanger/platform/instrument';

// Under vitest, express (CommonJS) imported from a test comes out unpatched, whereas under tsx (production)
// it is patched and pg is either way: required here first, through the hook on require, the
// patched exports are what every later import gets.
createRequire(import.meta.url)('express');
