// oidc-provider ships no types; this is the part the social sign-in suite uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

  export interface Interaction {
    uid: string;
    prompt: { name: 'login' | 'consent' | string; details: Record<string, unknown> & { missingOIDCScope?: string[]; missingOIDCClaims?: string[] } };
    params: Record<string, string | undefined> & { client_id: string };
    session?: { accountId: string };
    grantId?: string;
  }
  export interface Grant {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    save(): Promise<string>;
  }
  export interface Account {
    accountId: string;
    claims(use: string, scope: string): Record<string, unknown> | Promise<Record<string, unknown>>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown> & { findAccount?: (context: unknown, id: string) => Promise<Account | undefined> | Account | undefined });
    callback(): RequestListener;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    Grant: new (properties: { accountId: string; clientId: string }) => Grant;
    AccessToken: { find(token: string): Promise<{ accountId: string; scope?: string } | undefined> };
    on(event: string, listener: (...args: any[]) => void): void;
  }
}
