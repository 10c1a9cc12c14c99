// Part of `npm run proto`: records the fields of the freshly generated code in fields.json, unless
// a change breaks what is recorded (a renumbered, retyped or removed field): then it records
// nothing, names the change and fails, so a break cannot be recorded by regenerating.
import fs from 'node:fs';
import { additions, committedSnapshot, currentSnapshot, incompatibilities, snapshotPath } from './compat.ts';

const current = currentSnapshot();
const committed = fs.existsSync(snapshotPath) ? committedSnapshot() : {};
const problems = incompatibilities(committed, current);
if (problems.length > 0) {
  console.error(`proto/: incompatible with proto/compat/fields.json, not recorded:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
// One line per field, so a diff of this file reads as the list of fields that changed.
const lines = Object.entries(current).map(
  ([message, fields]) =>
    `  ${JSON.stringify(message)}: {\n${Object.entries(fields)
      .map(([name, field]) => `    ${JSON.stringify(name)}: ${JSON.stringify(field)}`)
      .join(',\n')}\n  }`,
);
fs.writeFileSync(snapshotPath, `{\n${lines.join(',\n')}\n}\n`);
const added = additions(committed, current);
console.log(`proto/compat/fields.json: ${added.length ? `recorded ${added.join(', ')}` : 'unchanged'}`);
