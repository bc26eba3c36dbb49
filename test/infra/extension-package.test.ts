import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { strFromU8, unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildExtension } from '../../extension/build';
import { repositoryRoot } from '../support/processes';

/** The built extension: one package for Chromium and Firefox, least permissions, and Mozilla's linter passes. */

let outDir: string;
let zipPath: string;
let manifest: Record<string, any>;

beforeAll(async () => {
  const built = await buildExtension({ outDir: join(mkdtempSync(join(tmpdir(), 'gleaner-package-')), 'extension') });
  outDir = built.outDir;
  zipPath = built.zipPath!;
  manifest = JSON.parse(readFileSync(join(outDir, 'manifest.json'), 'utf8'));
}, 60_000);

describe('the extension package', () => {
  it('runs its background code as a Chromium service worker and as Firefox background scripts', () => {
    expect(manifest).toMatchObject({
      manifest_version: 3,
      version: JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')).version,
      background: { service_worker: 'background.js', scripts: ['background.js'] },
      browser_specific_settings: { gecko: { id: expect.stringMatching(/^[\w.-]+@[\w.-]+$/) } },
      commands: { 'save-page': { suggested_key: { default: 'Alt+Shift+S' } } },
    });
  });

  it('asks for no host at install: the page through activeTab, the server only if its CORS needs it', () => {
    expect(manifest.host_permissions).toBeUndefined();
    expect(JSON.stringify(manifest)).not.toContain('<all_urls>');
    expect(manifest.permissions).toEqual(
      expect.arrayContaining(['activeTab', 'scripting', 'storage', 'unlimitedStorage', 'alarms']),
    );
    // http:// only on this computer, where the token never crosses a network.
    expect(manifest.optional_host_permissions).toEqual([
      'https://*/*',
      'http://127.0.0.1/*',
      'http://localhost/*',
      'http://[::1]/*',
    ]);
  });

  it('puts nothing on globalThis for tests: they build their own worker entry', () => {
    const worker = readFileSync(join(outDir, 'background.js'), 'utf8');
    expect(worker).toContain('startWorker');
    expect(worker).not.toContain('gleanerWorker');
    expect(worker).not.toMatch(/globalThis\b/);
  });

  it('zips exactly the unpacked files', () => {
    const files = unzipSync(readFileSync(zipPath));
    expect(Object.keys(files).sort()).toEqual(
      [
        'background.js',
        'icons/icon-128.png',
        'icons/icon-16.png',
        'icons/icon-32.png',
        'icons/icon-48.png',
        'manifest.json',
        'options.css',
        'options.html',
        'options.js',
        'pages.css',
        'popup.css',
        'popup.html',
        'popup.js',
      ].sort(),
    );
    expect(JSON.parse(strFromU8(files['manifest.json']!))).toEqual(manifest);
  });

  it('passes web-ext lint with no errors (Firefox ignoring service_worker is the one expected warning)', async () => {
    const { stdout } = await promisify(execFile)(
      join(repositoryRoot, 'node_modules', '.bin', 'web-ext'),
      ['lint', '--source-dir', outDir, '--output', 'json', '--no-config-discovery'],
      // Offline: web-ext would otherwise ask the npm registry whether it is the latest release.
      { cwd: repositoryRoot, env: { ...process.env, NO_UPDATE_NOTIFIER: '1' } },
    ).catch((error: { stdout: string }) => error);
    const report = JSON.parse(stdout) as {
      errors: { code: string }[];
      warnings: { code: string }[];
      notices: { code: string }[];
    };
    expect(report.errors).toEqual([]);
    expect(report.warnings.map((warning) => warning.code)).toEqual(['BACKGROUND_SERVICE_WORKER_IGNORED']);
  }, 120_000);
});
