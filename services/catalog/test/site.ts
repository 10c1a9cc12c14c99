import { notAVideo, startSite, type Site } from '@cliffhanger/platform/testing';
import { transcoderModule } from '@cliffhanger/transcoder';
import { unlockModule } from '@cliffhanger/unlock';
import { userModule } from '@cliffhanger/user';
import { catalogModule, type CatalogAdmin, type LocalCatalogClient } from '../src/index.ts';

export { notAVideo, type Site };

/** The platform's site harness with what the catalog runs beside: the user, unlock and transcoder modules. */
export const startCatalogSite = (env: Record<string, string> = {}, options: { adminApi?: boolean } = {}) =>
  startSite({ modules: [userModule, catalogModule, unlockModule, transcoderModule], env, ...options });

/** The catalog's operator side in the site's process, for setup the admin API has no call for. */
export const adminOf = (site: Site): CatalogAdmin => (site.instances.get('catalog')!.client as LocalCatalogClient).admin;
