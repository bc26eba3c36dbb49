import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../local/dynamodb-local';
import { repositoryRoot } from '../support/processes';

/** `npm start` as a newcomer runs it: a real process, DynamoDB Local on disk, the printed curl command. */

const dataDir = mkdtempSync(join(tmpdir(), 'gleaner-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function start(env: Record<string, string>): { child: ChildProcess; output: () => string; stderr: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], { cwd: repositoryRoot, env: { ...process.env, ...env }, stdio: 'pipe' });
  let output = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, stderr: () => stderr, exited };
}

async function waitFor(predicate: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function runPrintedCurl(output: string): Promise<string> {
  const command = /(curl -sS -X POST[\s\S]*?-d '.*')/.exec(output)?.[1];
  if (!command) throw new Error(`no curl command in:\n${output}`);
  return new Promise((resolve, reject) => execFile('bash', ['-c', command], (error, stdout) => (error ? reject(error) : resolve(stdout))));
}

function portOpen(endpoint: string): Promise<boolean> {
  const { hostname, port } = new URL(endpoint);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

describe('npm start', () => {
  it('serves the save route, prints a working curl command, keeps data across restarts and stops DynamoDB Local on Ctrl-C', async () => {
    const port = await findFreePort();
    // The demo page is a real site; the test must not fetch it.
    const env = { PORT: String(port), GLEANER_DATA_DIR: dataDir, GLEANER_ENRICHMENT: 'off' };

    const first = start(env);
    await waitFor(() => first.output().includes('Stop with Ctrl-C'));
    expect(first.output()).toContain(`Gleaner is running at http://127.0.0.1:${port}`);
    expect(first.output()).toContain('(created now)');
    const dynamoEndpoint = /DynamoDB Local at (http:\/\/\S+)\)/.exec(first.output())![1]!;
    expect(JSON.parse(await runPrintedCurl(first.output()))).toMatchObject({ is_new_bookmark: true });
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(await portOpen(dynamoEndpoint)).toBe(false);

    const second = start(env);
    await waitFor(() => second.output().includes('Stop with Ctrl-C'));
    expect(second.output()).not.toContain('(created now)');
    expect(JSON.parse(await runPrintedCurl(second.output()))).toMatchObject({ is_new_bookmark: false, selection_appended: false });
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
  }, 120_000);

  it('says so on stderr and exits non-zero when DynamoDB Local dies, instead of answering 500 forever', async () => {
    const env = { PORT: String(await findFreePort()), GLEANER_DATA_DIR: join(dataDir, 'crash'), GLEANER_ENRICHMENT: 'off' };
    const run = start(env);
    await waitFor(() => run.output().includes('Stop with Ctrl-C'));
    const { dynamoPid } = JSON.parse(readFileSync(join(env.GLEANER_DATA_DIR, 'local-stack.json'), 'utf8')) as { dynamoPid: number };
    process.kill(dynamoPid, 'SIGKILL');
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toMatch(/DynamoDB Local stopped unexpectedly \(killed by SIGKILL\); stopping too/);
    expect(await portOpen(`http://127.0.0.1:${env.PORT}`)).toBe(false);
  }, 120_000);

  it('exits non-zero with a clear message when the port is taken', async () => {
    const blocker = createServer();
    const port = await new Promise<number>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve((blocker.address() as { port: number }).port)));
    const run = start({ PORT: String(port), GLEANER_DATA_DIR: join(dataDir, 'taken') });
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(new RegExp(`port ${port} is already in use`));
    blocker.close();
  });

  it('exits non-zero with a clear message when Java is missing', async () => {
    const emptyPath = mkdtempSync(join(tmpdir(), 'gleaner-no-java-'));
    const run = start({ PORT: String(await findFreePort()), GLEANER_DATA_DIR: join(dataDir, 'nojava'), PATH: emptyPath, JAVA_HOME: '' });
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(/Java was not found/);
  });
});
