import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalsServing } from '../../local/data-lock';
import { findFreePort } from '../../local/dynamodb-local';
import { isAlive } from '../../local/state';
import { type StartedService, startService, waitFor } from '../support/processes';

/** `npm start` as a newcomer runs it: a real process, DynamoDB Local on disk, the printed curl command. */

const dataDir = mkdtempSync(join(tmpdir(), 'gleaner-start-'));
const started: StartedService[] = [];
/** A start that a failed test leaves running is stopped (with its DynamoDB Local) after the file. */
function start(env: Record<string, string>, viaNpm = false): StartedService {
  const run = startService(env, viaNpm);
  started.push(run);
  return run;
}
afterAll(async () => {
  const running = started.filter(({ child }) => child.exitCode === null && child.signalCode === null);
  for (const { child } of running) child.kill('SIGTERM');
  await Promise.all(running.map(({ exited }) => exited));
  rmSync(dataDir, { recursive: true, force: true });
});

function readState(folder: string): { pid: number; dynamoPid: number; dynamoEndpoint: string } {
  return JSON.parse(readFileSync(join(folder, 'local-stack.json'), 'utf8')) as {
    pid: number;
    dynamoPid: number;
    dynamoEndpoint: string;
  };
}

function runPrintedCurl(output: string): Promise<string> {
  const command = /(curl -sS -X POST[\s\S]*?-d '.*')/.exec(output)?.[1];
  if (!command) throw new Error(`no curl command in:\n${output}`);
  return new Promise((resolve, reject) =>
    execFile('bash', ['-c', command], (error, stdout) => (error ? reject(error) : resolve(stdout))),
  );
}

function portOpen(endpoint: string): Promise<boolean> {
  const { hostname, port } = new URL(endpoint);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A start on its own data folder (under `dataDir`) and a free port, enrichment off (the demo page is a real site). */
async function startOn(folder: string, extra: Record<string, string> = {}, viaNpm = false) {
  const env = {
    PORT: String(await findFreePort()),
    GLEANER_DATA_DIR: join(dataDir, folder),
    GLEANER_ENRICHMENT: 'off',
    ...extra,
  };
  return { env, run: start(env, viaNpm) };
}

/** Until the banner is out; on a timeout, the error shows what the start printed instead. */
const serving = (run: StartedService) =>
  waitFor(() => run.output().includes('Stop with Ctrl-C'), 150_000).catch((error: Error) => {
    throw new Error(`${error.message}; the start printed:\n${run.output()}`);
  });

// Each start is a Node process and a Java one, seconds of CPU each (several at once starve each other
// on two cores): behaviours are checked on one start where one's end is the next one's beginning, so
// the file starts DynamoDB Local 7 times, not 12.
describe('npm start', { timeout: 300_000 }, () => {
  it('serves the save route with a working curl command, refuses a second start on its folder, stops DynamoDB Local on Ctrl-C, keeps data across restarts, and stops when DynamoDB Local dies', async () => {
    const { env, run: first } = await startOn('main');
    const port = env.PORT;
    await serving(first);
    expect(first.output()).toContain(`Gleaner is running at http://127.0.0.1:${port}`);
    expect(first.output()).toContain('(created now)');
    // The line a second shell needs so that `npx gleaner` finds this stack.
    expect(first.output()).toContain(`export GLEANER_DATA_DIR=${env.GLEANER_DATA_DIR}`);
    const dynamoEndpoint = /DynamoDB Local at (http:\/\/\S+)\)/.exec(first.output())![1]!;
    expect(JSON.parse(await runPrintedCurl(first.output()))).toMatchObject({ is_new_bookmark: true });
    // An interaction that is over (Back after Allow) is a page, not the end of the server.
    const expired = await fetch(`http://127.0.0.1:${port}/oauth/interaction/anything`);
    expect(expired.status).toBe(400);
    expect(await expired.text()).toContain('This sign-in step has expired');
    expect(first.child.exitCode).toBeNull();

    // A second start on the same folder is refused, and neither deletes the first one's state nor stops its database.
    const refused = start({ ...env, PORT: String(await findFreePort()) });
    expect(await refused.exited).toBe(1);
    expect(refused.stderr()).toContain(
      `${env.GLEANER_DATA_DIR} is in use by another npm start (pid ${first.child.pid})`,
    );
    const state = readState(env.GLEANER_DATA_DIR);
    expect(state.pid).toBe(first.child.pid);
    expect(await portOpen(state.dynamoEndpoint)).toBe(true);

    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(await portOpen(dynamoEndpoint)).toBe(false);

    const second = start(env);
    await serving(second);
    expect(second.output()).not.toContain('(created now)');
    expect(JSON.parse(await runPrintedCurl(second.output()))).toMatchObject({
      is_new_bookmark: false,
      selection_appended: false,
    });

    // DynamoDB Local dies: it says so on stderr and exits non-zero, instead of answering 500 forever.
    process.kill(readState(env.GLEANER_DATA_DIR).dynamoPid, 'SIGKILL');
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toMatch(/DynamoDB Local stopped unexpectedly \(killed by SIGKILL\); stopping too/);
    expect(await portOpen(`http://127.0.0.1:${port}`)).toBe(false);
  });

  it('exits non-zero with a clear message when the port is taken', async () => {
    const blocker = createServer();
    const port = await new Promise<number>((resolve) =>
      blocker.listen(0, '127.0.0.1', () => resolve((blocker.address() as { port: number }).port)),
    );
    const run = start({ PORT: String(port), GLEANER_DATA_DIR: join(dataDir, 'taken') });
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(new RegExp(`port ${port} is already in use`));
    blocker.close();
  });

  it('takes over a lock whose pid is now another program (as after a reboot); after a kill -9 the next start stops the DynamoDB Local left behind; it stops on SIGHUP, as when its terminal closes', async () => {
    const otherProgram = spawn('sleep', ['120']);
    const folder = join(dataDir, 'orphan');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'npm-start.lock'), `${otherProgram.pid}\n`);
    const { env, run: killed } = await startOn('orphan');
    try {
      await waitFor(() => killed.output().includes('Stop with Ctrl-C') || killed.child.exitCode !== null);
      expect(killed.stderr()).not.toContain('is in use by another npm start');
      expect(killed.output()).toContain('Gleaner is running at');
    } finally {
      otherProgram.kill();
    }
    const orphan = readState(env.GLEANER_DATA_DIR).dynamoPid;
    killed.child.kill('SIGKILL');
    await killed.exited;
    expect(isAlive(orphan)).toBe(true);

    const next = start({ ...env, PORT: String(await findFreePort()) });
    await serving(next);
    expect(next.stderr()).toContain(`stopping DynamoDB Local (pid ${orphan}) left running on ${env.GLEANER_DATA_DIR}`);
    expect(isAlive(orphan)).toBe(false);
    expect(JSON.parse(await runPrintedCurl(next.output()))).toMatchObject({ bookmark: { title: 'Serverless notes' } });

    const { dynamoPid } = readState(env.GLEANER_DATA_DIR);
    next.child.kill('SIGHUP');
    expect(await next.exited).toBe(0);
    expect(isAlive(dynamoPid)).toBe(false);
  });

  it('stops the whole tree, DynamoDB Local included, when a process manager sends npm start SIGTERM', async () => {
    const { env, run } = await startOn('sigterm', {}, true);
    await serving(run);
    const state = readState(env.GLEANER_DATA_DIR);
    run.child.kill('SIGTERM');
    await waitFor(() => !isAlive(state.pid) && !isAlive(state.dynamoPid));
    expect(await portOpen(`http://127.0.0.1:${env.PORT}`)).toBe(false);
    expect(await portOpen(state.dynamoEndpoint)).toBe(false);
  });

  // npm does not pass SIGHUP on, and nothing passes on a SIGKILL: node notices that npm is gone.
  it.each(['SIGHUP', 'SIGKILL'] as const)('stops the whole tree when npm itself dies of %s', async (signal) => {
    const { env, run } = await startOn(`npm-${signal}`, {}, true);
    await serving(run);
    const state = readState(env.GLEANER_DATA_DIR);
    run.child.kill(signal);
    await waitFor(() => !isAlive(state.pid) && !isAlive(state.dynamoPid));
    expect(await portOpen(`http://127.0.0.1:${env.PORT}`)).toBe(false);
  });

  it('stops DynamoDB Local too when SIGTERM comes while it is still starting', async () => {
    const { env, run } = await startOn('sigterm-starting');
    // Java is running but the banner is not out yet: DynamoDB Local takes seconds to answer.
    await waitFor(() => dynamoDbLocalsServing(env.GLEANER_DATA_DIR).length > 0);
    const [starting] = dynamoDbLocalsServing(env.GLEANER_DATA_DIR);
    expect(run.output()).not.toContain('Stop with Ctrl-C');
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(isAlive(starting!)).toBe(false);
    expect(run.stderr()).not.toContain('could not start');
  });

  it('says what PORT must be when it is not a port', async () => {
    const runs = ['abc', '70000', '0'].map((port) => ({
      port,
      run: start({ PORT: port, GLEANER_DATA_DIR: join(dataDir, 'badport') }),
    }));
    for (const { port, run } of runs) {
      expect(await run.exited).toBe(1);
      expect(run.stderr()).toContain(`PORT must be a whole number from 1 to 65535 (got "${port}")`);
    }
  });

  it('says Java 17 or newer is needed, and which version it found, when Java is too old', async () => {
    // A stand-in for Java 11: what it prints when asked to run DynamoDB Local's Java 17 classes.
    const oldJava = mkdtempSync(join(dataDir, 'old-java-'));
    writeFileSync(
      join(oldJava, 'java'),
      `#!/bin/sh\necho 'Error: LinkageError occurred while loading main class com.amazonaws.services.dynamodbv2.local.main.ServerRunner' >&2\necho '\tjava.lang.UnsupportedClassVersionError: com/amazonaws/services/dynamodbv2/local/main/ServerRunner has been compiled by a more recent version of the Java Runtime (class file version 61.0), this version of the Java Runtime only recognizes class file versions up to 55.0' >&2\nexit 1\n`,
      { mode: 0o755 },
    );
    const run = start({
      PORT: String(await findFreePort()),
      GLEANER_DATA_DIR: join(dataDir, 'oldjava'),
      PATH: `${oldJava}:${process.env.PATH}`,
    });
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toContain('DynamoDB Local needs Java 17 or newer');
    expect(run.stderr()).toContain('found Java 11');
    expect(run.stderr()).not.toContain('UnsupportedClassVersionError');
  });

  it('exits non-zero with a clear message when Java is missing', async () => {
    const emptyPath = mkdtempSync(join(dataDir, 'no-java-'));
    const run = start({
      PORT: String(await findFreePort()),
      GLEANER_DATA_DIR: join(dataDir, 'nojava'),
      PATH: emptyPath,
      JAVA_HOME: '',
    });
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(/Java was not found/);
  });
});
