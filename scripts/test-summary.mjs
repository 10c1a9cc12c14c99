// Adds up vitest's JSON reports into the one closing line CI reads.
import fs from 'node:fs';

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of process.argv.slice(2)) {
  if (!fs.existsSync(file)) {
    failed += 1;
    console.error(`no report at ${file}: that pass did not finish`);
    continue;
  }
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests + (report.numFailedTestSuites ?? 0);
  skipped += report.numPendingTests + report.numTodoTests;
}
console.log(`npm test: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed ? 1 : 0);
