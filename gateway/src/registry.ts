import type { Registry } from '@cliffhanger/platform';
import { analyticsModule } from '@cliffhanger/analytics';
import { catalogModule } from '@cliffhanger/catalog';
import { demoModule } from '@cliffhanger/demo';
import { paymentModule } from '@cliffhanger/payment';
import { transcoderModule } from '@cliffhanger/transcoder';
import { unlockModule } from '@cliffhanger/unlock';
import { userModule } from '@cliffhanger/user';

/**
 * Every module of Cliffhanger (Grafana Loki's modules table): `TARGET=all` runs them all, any other
 * TARGET the ones it names, and the gateway routes to whatever runs elsewhere. Adding a service is
 * its folder and one line here (docs/architecture.md, "Adding a service").
 */
export const registry: Registry = {
  modules: [userModule, catalogModule, unlockModule, paymentModule, transcoderModule, analyticsModule, demoModule],
  identity: userModule.name,
};
