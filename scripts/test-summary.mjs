// Adds up vitest's JSON reports into the one closing line CI reads, after the name of every test that
// failed (CI keeps only the end of the output, so what failed must be there too).
import fs from 'node:fs';
import path from 'node:path';

let passed = 0;
let skipped = 0;
const failures = [];
for (const file of process.argv.slice(2)) {
  if (!fs.existsSync(file)) {
    failures.push(`${path.basename(file, '.json')}: no report, that pass did not finish`);
    continue;
  }
  const report = JSON.parse(fs.readFileSync(file, 'utf8'));
  passed += report.numPassedTests;
  skipped += report.numPendingTests + report.numTodoTests;
  const pass = path.basename(file, '.json');
  // A failed test counts once (vitest's numFailedTestSuites counts its describe blocks and file too);
  // a file that failed with no test failing (it did not load, a hook threw) counts as one.
  for (const suite of report.testResults ?? []) {
    const where = path.relative(process.cwd(), suite.name);
    const tests = (suite.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of tests) failures.push(`${pass}: ${where} > ${test.fullName}: ${firstLine(test.failureMessages)}`);
    if (!tests.length && suite.status === 'failed') failures.push(`${pass}: ${where}: ${firstLine([suite.message])}`);
  }
}
function firstLine(messages) {
  const text = (messages ?? []).find(Boolean) ?? '';
  return text.split('\n').find((line) => line.trim())?.trim().slice(0, 300) ?? '';
}
if (failures.length) console.log(`failed:\n${failures.map((line) => `  ${line}`).join('\n')}`);
console.log(`npm test: ${passed} passed, ${failures.length} failed, ${skipped} skipped`);
process.exit(failures.length ? 1 : 0);
