import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, expect, it } from 'vitest';
import { routeFunctions, routes } from '../../functions/platform/routes';
import { scheduledTasks, streamConsumers, workers } from '../../functions/platform/workers';
import { webAssets } from '../../lib/web-assets';
import { cfnLintAvailable } from '../support/cfn-lint';
import { appFunctions, overResourceBudget } from './harness';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
const outdir = mkdtempSync(path.join(tmpdir(), 'gleaner-synth-'));
const project = mkdtempSync(path.join(tmpdir(), 'gleaner-deployer-'));
afterAll(() => {
  rmSync(outdir, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
});
const cdkCli = path.join(projectRoot, 'node_modules/aws-cdk/bin/cdk');

/**
 * A deployer's folder: the repository's cdk.json with the setting every deployment adds (the mail
 * sender, which has no default), running this repository's app.
 */
function deployerProject(): string {
  const cdkJson = JSON.parse(readFileSync(path.join(projectRoot, 'cdk.json'), 'utf8'));
  cdkJson.app = `"${process.execPath}" --import ${import.meta.resolve('tsx')} "${path.join(projectRoot, 'bin/app.ts')}"`;
  cdkJson.context.gleaner.mailFrom = 'Gleaner <no-reply@mail.gleaner.test>';
  writeFileSync(path.join(project, 'cdk.json'), JSON.stringify(cdkJson));
  return project;
}

it('synthesizes the app with the CLI, bundling every function as ESM with the AWS SDK inside, split where it loads code on first use', () => {
  const synth = spawnSync(process.execPath, [cdkCli, 'synth', '--quiet', '-o', outdir], {
    cwd: deployerProject(),
    env: { ...process.env, CI: 'true' },
    encoding: 'utf8',
    timeout: 240_000,
  });
  // cdk-nag runs as a validation plugin: a finding nobody acknowledged fails the synth.
  expect(synth.status, `${synth.stdout}\n${synth.stderr}`).toBe(0);

  // The service's stack, the API's nested stacks (a stack per route group, then the deployment and
  // stage: lib/route-group.ts) and the monitoring stack (lib/monitoring.ts), each within its budget.
  expect(templateFiles()).toEqual([
    'Gleaner.template.json',
    expect.stringMatching(/^GleanerApiDeployment\w+\.nested\.template\.json$/),
    expect.stringMatching(/^GleanerApiOauthAndMcpRoutes\w+\.nested\.template\.json$/),
    expect.stringMatching(/^GleanerApiOwnerApiRoutes\w+\.nested\.template\.json$/),
    expect.stringMatching(/^GleanerApiSaveAndFeedsRoutes\w+\.nested\.template\.json$/),
    expect.stringMatching(/^GleanerApiWebPagesRoutes\w+\.nested\.template\.json$/),
    expect.stringMatching(/^GleanerMonitoring\w+\.nested\.template\.json$/),
  ]);
  expect(
    overResourceBudget(
      Object.fromEntries(
        templateFiles().map((file) => [file, JSON.parse(readFileSync(path.join(outdir, file), 'utf8'))]),
      ),
      'Gleaner.template.json',
    ),
  ).toEqual([]);
  const template = JSON.parse(readFileSync(path.join(outdir, 'Gleaner.template.json'), 'utf8'));
  const functions = appFunctions(Template.fromJSON(template)).map(([, fn]) => fn);
  const pageBundles: string[] = [];
  expect(functions).toHaveLength(
    routeFunctions(routes).length + workers.length + scheduledTasks.length + streamConsumers.length,
  );
  // LanceDB and Arrow ship once, in the search engine's layer, with LanceDB's x86-64 Linux build.
  const [layerId, layer] = Object.entries(template.Resources as Record<string, any>).find(
    ([, resource]) => resource.Type === 'AWS::Lambda::LayerVersion' && /LanceDB/.test(resource.Properties.Description),
  )!;
  const layerModules = path.join(
    outdir,
    `asset.${String(layer.Properties.Content.S3Key).replace(/\.zip$/, '')}`,
    'nodejs/node_modules',
  );
  expect(readdirSync(path.join(layerModules, '@lancedb')).sort()).toEqual(['lancedb', 'lancedb-linux-x64-gnu']);
  for (const fn of functions) {
    expect(fn.Properties.Handler, fn.Properties.Description).toBe('index.handler');
    const assetHash = String(fn.Properties.Code.S3Key).replace(/\.zip$/, '');
    const bundle = path.join(outdir, `asset.${assetHash}`, 'index.mjs');
    expect(existsSync(bundle), fn.Properties.Description).toBe(true);
    // No function carries packages of its own (LanceDB's 160 MB shipped in each search function).
    expect(existsSync(path.join(path.dirname(bundle), 'node_modules')), fn.Properties.Description).toBe(false);
    // Lambda resolves a function's imports in its layers' nodejs/node_modules too: so does this load.
    if (JSON.stringify(fn.Properties.Layers ?? []).includes(layerId))
      symlinkSync(layerModules, path.join(path.dirname(bundle), 'node_modules'));
    const code = readFileSync(bundle, 'utf8');
    expect(code).toMatch(
      /^import \{ createRequire \} from 'module'; const require = createRequire\(import\.meta\.url\);/,
    );
    // The locked AWS SDK is inside the bundle: nothing is left for the runtime's own copy to supply.
    expect(
      /(?:from|import\()\s*["']@aws-sdk\/[\w-]+["']/.exec(code)?.[0] ?? null,
      fn.Properties.Description,
    ).toBeNull();
    // The source map ships for reading stack traces offline, but no start-up flag parses it on a cold start.
    expect(existsSync(`${bundle}.map`), fn.Properties.Description).toBe(true);
    expect(JSON.stringify(fn.Properties.Environment ?? {})).not.toContain('enable-source-maps');
    // Every file of the asset loads in a fresh Node: the entry, and the chunks it leaves for import().
    const files = readdirSync(path.dirname(bundle), { encoding: 'utf8', recursive: true }).filter(
      (file) => file.endsWith('.mjs') && !file.startsWith('node_modules'),
    );
    const allCode = files.map((file) => readFileSync(path.join(path.dirname(bundle), file), 'utf8')).join('\n');
    if (allCode.includes('manifest.webmanifest')) pageBundles.push(allCode);
    const load = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `for (const file of ${JSON.stringify(files)}) await import(${JSON.stringify(path.dirname(bundle))} + '/' + file);`,
      ],
      { encoding: 'utf8' },
    );
    expect(load.status, `${fn.Properties.Description}: ${load.stderr}`).toBe(0);
  }
  // The pages name the web assets under the version the web bucket holds them at (lib/web-assets.ts).
  expect(pageBundles.length).toBeGreaterThan(1);
  for (const code of pageBundles) expect(code).toContain(webAssets().version);
  expect(JSON.stringify(template)).toContain(`assets/${webAssets().version}/`);
}, 300_000);

/** The CloudFormation templates the CLI wrote, the parent's first. */
function templateFiles(): string[] {
  return readdirSync(outdir)
    .filter((file) => file.endsWith('.template.json'))
    .sort((a, b) => Number(a.includes('.nested.')) - Number(b.includes('.nested.')) || a.localeCompare(b));
}

// Reads the templates the test above wrote (vitest runs a file's tests in order).
it.skipIf(!cfnLintAvailable())(
  'passes cfn-lint with no finding but those .cfnlintrc.yaml gives a reason for, in the nested stack too',
  () => {
    const lint = spawnSync(
      'cfn-lint',
      [
        '--config-file',
        path.join(projectRoot, '.cfnlintrc.yaml'),
        '--format',
        'json',
        ...templateFiles().map((file) => path.join(outdir, file)),
      ],
      {
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    expect(lint.stderr).toBe('');
    const findings = JSON.parse(lint.stdout) as {
      Rule: { Id: string };
      Message: string;
      Location: { Path: unknown[] };
    }[];
    expect(findings.map((finding) => `${finding.Rule.Id} ${finding.Message}`)).toEqual([]);
    expect(lint.status).toBe(0);
  },
  150_000,
);
