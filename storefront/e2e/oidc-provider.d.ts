// oidc-provider ships no types; this is the part the social sign-in suite uses.
declare module 'oidc-provider' {
  import type { RequestListener } from 'node:http';

  export default class Provider {
    constructor(
      issuer: string,
      configuration: Record<string, unknown> & {
        findAccount?: (context: unknown, id: string) => { accountId: string; claims(): Record<string, unknown> } | undefined;
      },
    );
    callback(): RequestListener;
  }
}
