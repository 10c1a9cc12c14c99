// `npm start` and the image's command. OpenTelemetry's instrumentations patch node:http, express,
// pg, ioredis and kafkajs as they load, so they are registered before anything imports one: the
// site itself (serve.ts) is imported only after.
import '@cliffhanger/platform/instrument';

await import('./serve.ts');
