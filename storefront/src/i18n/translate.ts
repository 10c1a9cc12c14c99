import type { MessageKey, Messages } from './en';

export type Vars = Record<string, string | number>;

/**
 * The text of a key, with {name} placeholders filled. Every language translates every key
 * (i18n.test.ts); should one still be missing, the key shows rather than a blank.
 */
export function translate(messages: Partial<Messages>, key: MessageKey, vars: Vars = {}): string {
  const template = messages[key] || key;
  return template.replace(/\{(\w+)\}/g, (match, name: string) => (name in vars ? String(vars[name]) : match));
}
