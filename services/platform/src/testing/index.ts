// @cliffhanger/platform/testing: test fixtures on real parts and the one poller, `eventually`
// (fixtures.ts), media to feed them (media.ts), a whole site over HTTP (site.ts), the real site's
// process for the e2e suite and benchmarks (site-process.ts), librdkafka's mock cluster (kafka-mock.ts)
// and an S3-protocol object store (object-store.ts).
export * from './fixtures.ts';
export * from './media.ts';
export * from './site.ts';
export * from './site-process.ts';
export * from './kafka-mock.ts';
export * from './object-store.ts';
