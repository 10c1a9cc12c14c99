import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// No database, queue or cache here: the second pass (PostgreSQL and Redis) leaves this file out (scripts/test.sh).

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const depcruise = path.join(root, 'scripts/depcruise.mjs');

/** Plants a file in the tree, lints only it, and answers what the linter said. */
async function lintPlanted(file: string, source: string) {
  const planted = path.join(root, file);
  fs.writeFileSync(planted, source);
  try {
    await run(process.execPath, [depcruise, file, '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], { cwd: root });
    return { failed: false, output: '' };
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    return { failed: true, output: stdout + stderr };
  } finally {
    fs.rmSync(planted, { force: true });
  }
}

const unique = `planted-${process.pid}-${Date.now()}`;

describe('npm run lint: import boundaries', () => {
  it('refuses a platform file that imports a service', async () => {
    const result = await lintPlanted(`services/platform/src/${unique}.ts`, "export { catalogModule } from '@cliffhanger/catalog';\n");
    expect(result.failed).toBe(true);
    expect(result.output).toContain('platform-imports-no-service');
  });

  it("refuses a service that reaches into another service's files", async () => {
    const result = await lintPlanted(`services/user/src/${unique}.ts`, "export { catalogRepository } from '../../catalog/src/repository.ts';\n");
    expect(result.failed).toBe(true);
    expect(result.output).toContain('service-through-public-entry');
  });

  it("refuses a service test that imports the gateway's code", async () => {
    const result = await lintPlanted(`services/user/test/${unique}.ts`, "export { registry } from '../../../gateway/src/registry.ts';\n");
    expect(result.failed).toBe(true);
    expect(result.output).toContain('service-tests-not-through-gateway');
  });

  it("refuses a storefront feature that imports another feature's internals", async () => {
    const result = await lintPlanted(
      `storefront/src/features/search/${unique}.ts`,
      "export { default } from '../video/VideoPage';\n",
    );
    expect(result.failed).toBe(true);
    expect(result.output).toContain('features-do-not-import-each-other');
  });

  it('accepts a service that uses another through its package entry', async () => {
    const result = await lintPlanted(`services/user/src/${unique}.ts`, "export type { CatalogClient } from '@cliffhanger/catalog';\n");
    expect(result).toEqual({ failed: false, output: '' });
  });
}, 60_000);
