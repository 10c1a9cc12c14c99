import { en, type MessageKey, type Messages } from './en';

export type Vars = Record<string, string | number>;

/** The text of a key in the given messages, English when missing, with {name} placeholders filled. */
export function translate(messages: Partial<Messages>, key: MessageKey, vars: Vars = {}): string {
  const template = messages[key] || en[key];
  return template.replace(/\{(\w+)\}/g, (match, name: string) => (name in vars ? String(vars[name]) : match));
}
