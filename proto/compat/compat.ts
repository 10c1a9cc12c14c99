// The compatibility check of proto/: consumers running older code must keep reading what newer
// producers write (and the other way round), so a field may be added but never renumbered,
// retyped or removed. fields.json records every message's fields as last generated; the platform's
// proto-compat test compares the generated descriptors against it.
import fs from 'node:fs';
import { ScalarType, type DescField, type DescFile, type DescMessage } from '@bufbuild/protobuf';
import { file_cliffhanger_events_v1_events } from '../gen/cliffhanger/events/v1/events_pb.ts';

/** Message full name → field name → its number and type (`string`, `repeated …`, `map<k, v>`, a message name). */
export type FieldSnapshot = Record<string, Record<string, { number: number; type: string }>>;

export const snapshotPath = new URL('./fields.json', import.meta.url);

/** The fields of every message proto/ generates code for. */
export function currentSnapshot(files: readonly DescFile[] = [file_cliffhanger_events_v1_events]): FieldSnapshot {
  const snapshot: FieldSnapshot = {};
  const visit = (message: DescMessage) => {
    snapshot[message.typeName] = Object.fromEntries(
      [...message.fields].sort((a, b) => a.number - b.number).map((field) => [field.name, { number: field.number, type: typeOf(field) }]),
    );
    message.nestedMessages.forEach(visit);
  };
  for (const file of files) file.messages.forEach(visit);
  return snapshot;
}

export function committedSnapshot(): FieldSnapshot {
  return JSON.parse(fs.readFileSync(snapshotPath, 'utf8')) as FieldSnapshot;
}

/** What `current` breaks of `committed`: renumbered, retyped or removed fields, removed messages. */
export function incompatibilities(committed: FieldSnapshot, current: FieldSnapshot): string[] {
  const problems: string[] = [];
  for (const [message, fields] of Object.entries(committed)) {
    const now = current[message];
    if (!now) {
      problems.push(`${message} was removed`);
      continue;
    }
    for (const [name, was] of Object.entries(fields)) {
      const is = now[name];
      if (!is) problems.push(`${message}.${name} (field ${was.number}) was removed`);
      else if (is.number !== was.number) problems.push(`${message}.${name} was renumbered from ${was.number} to ${is.number}`);
      else if (is.type !== was.type) problems.push(`${message}.${name} (field ${was.number}) was retyped from ${was.type} to ${is.type}`);
    }
  }
  return problems;
}

/** Fields and messages of `current` that `committed` does not record yet. */
export function additions(committed: FieldSnapshot, current: FieldSnapshot): string[] {
  return Object.entries(current).flatMap(([message, fields]) =>
    Object.keys(fields)
      .filter((name) => !committed[message]?.[name])
      .map((name) => `${message}.${name}`),
  );
}

function typeOf(field: DescField): string {
  switch (field.fieldKind) {
    case 'scalar':
      return scalarName(field.scalar);
    case 'enum':
      return field.enum.typeName;
    case 'message':
      return field.message.typeName;
    case 'list':
      return `repeated ${field.listKind === 'scalar' ? scalarName(field.scalar) : field.listKind === 'enum' ? field.enum.typeName : field.message.typeName}`;
    case 'map':
      return `map<${scalarName(field.mapKey)}, ${field.mapKind === 'scalar' ? scalarName(field.scalar) : field.mapKind === 'enum' ? field.enum.typeName : field.message.typeName}>`;
  }
}

const scalarName = (scalar: ScalarType) => ScalarType[scalar].toLowerCase();
