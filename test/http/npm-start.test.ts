import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dynamoDbLocalsServing } from '../../local/data-lock';
import { findFreePort } from '../../local/dynamodb-local';
import { isAlive } from '../../local/state';
import { startService as start, waitFor } from '../support/processes';

/** `npm start` as a newcomer runs it: a real process, DynamoDB Local on disk, the printed curl command. */

const dataDir = mkdtempSync(join(tmpdir(), 'gleaner-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

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

describe('npm start', () => {
  it('serves the save route, prints a working curl command, keeps data across restarts and stops DynamoDB Local on Ctrl-C', async () => {
    const port = await findFreePort();
    // The demo page is a real site; the test must not fetch it.
    const env = { PORT: String(port), GLEANER_DATA_DIR: dataDir, GLEANER_ENRICHMENT: 'off' };

    const first = start(env);
    await waitFor(() => first.output().includes('Stop with Ctrl-C'));
    expect(first.output()).toContain(`Gleaner is running at http://127.0.0.1:${port}`);
    expect(first.output()).toContain('(created now)');
    // The line a second shell needs so that `npx gleaner` finds this stack.
    expect(first.output()).toContain(`export GLEANER_DATA_DIR=${dataDir}`);
    const dynamoEndpoint = /DynamoDB Local at (http:\/\/\S+)\)/.exec(first.output())![1]!;
    expect(JSON.parse(await runPrintedCurl(first.output()))).toMatchObject({ is_new_bookmark: true });
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(await portOpen(dynamoEndpoint)).toBe(false);

    const second = start(env);
    await waitFor(() => second.output().includes('Stop with Ctrl-C'));
    expect(second.output()).not.toContain('(created now)');
    expect(JSON.parse(await runPrintedCurl(second.output()))).toMatchObject({
      is_new_bookmark: false,
      selection_appended: false,
    });
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
  }, 120_000);

  it('says so on stderr and exits non-zero when DynamoDB Local dies, instead of answering 500 forever', async () => {
    const env = {
      PORT: String(await findFreePort()),
      GLEANER_DATA_DIR: join(dataDir, 'crash'),
      GLEANER_ENRICHMENT: 'off',
    };
    const run = start(env);
    await waitFor(() => run.output().includes('Stop with Ctrl-C'));
    const { dynamoPid } = JSON.parse(readFileSync(join(env.GLEANER_DATA_DIR, 'local-stack.json'), 'utf8')) as {
      dynamoPid: number;
    };
    process.kill(dynamoPid, 'SIGKILL');
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toMatch(/DynamoDB Local stopped unexpectedly \(killed by SIGKILL\); stopping too/);
    expect(await portOpen(`http://127.0.0.1:${env.PORT}`)).toBe(false);
  }, 120_000);

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

  it('refuses a second start on the same data folder, and leaves the first one running', async () => {
    const env = { GLEANER_DATA_DIR: join(dataDir, 'twice'), GLEANER_ENRICHMENT: 'off' };
    const first = start({ ...env, PORT: String(await findFreePort()) });
    await waitFor(() => first.output().includes('Stop with Ctrl-C'));
    const second = start({ ...env, PORT: String(await findFreePort()) });
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toContain(
      `${env.GLEANER_DATA_DIR} is in use by another npm start (pid ${first.child.pid})`,
    );
    // The refused start neither deleted the first one's state nor stopped its database.
    const state = readState(env.GLEANER_DATA_DIR);
    expect(state.pid).toBe(first.child.pid);
    expect(await portOpen(state.dynamoEndpoint)).toBe(true);
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
  }, 120_000);

  it('takes over a lock whose pid is now another program, as after a reboot', async () => {
    const env = {
      PORT: String(await findFreePort()),
      GLEANER_DATA_DIR: join(dataDir, 'reused-pid'),
      GLEANER_ENRICHMENT: 'off',
    };
    const otherProgram = spawn('sleep', ['120']);
    mkdirSync(env.GLEANER_DATA_DIR, { recursive: true });
    writeFileSync(join(env.GLEANER_DATA_DIR, 'npm-start.lock'), `${otherProgram.pid}\n`);
    const run = start(env);
    try {
      await waitFor(() => run.output().includes('Stop with Ctrl-C') || run.child.exitCode !== null);
      expect(run.stderr()).not.toContain('is in use by another npm start');
      expect(run.output()).toContain('Gleaner is running at');
    } finally {
      otherProgram.kill();
      run.child.kill('SIGINT');
      await run.exited;
    }
  }, 120_000);

  it('stops the whole tree, DynamoDB Local included, when a process manager sends npm start SIGTERM', async () => {
    const env = {
      PORT: String(await findFreePort()),
      GLEANER_DATA_DIR: join(dataDir, 'sigterm'),
      GLEANER_ENRICHMENT: 'off',
    };
    const run = start(env, true);
    await waitFor(() => run.output().includes('Stop with Ctrl-C'));
    const state = readState(env.GLEANER_DATA_DIR);
    run.child.kill('SIGTERM');
    await waitFor(() => !isAlive(state.pid) && !isAlive(state.dynamoPid));
    expect(await portOpen(`http://127.0.0.1:${env.PORT}`)).toBe(false);
    expect(await portOpen(state.dynamoEndpoint)).toBe(false);
  }, 120_000);

  // npm does not pass SIGHUP on, and nothing passes on a SIGKILL: node notices that npm is gone.
  it.each(['SIGHUP', 'SIGKILL'] as const)(
    'stops the whole tree when npm itself dies of %s',
    async (signal) => {
      const env = {
        PORT: String(await findFreePort()),
        GLEANER_DATA_DIR: join(dataDir, `npm-${signal}`),
        GLEANER_ENRICHMENT: 'off',
      };
      const run = start(env, true);
      await waitFor(() => run.output().includes('Stop with Ctrl-C'));
      const state = readState(env.GLEANER_DATA_DIR);
      run.child.kill(signal);
      await waitFor(() => !isAlive(state.pid) && !isAlive(state.dynamoPid));
      expect(await portOpen(`http://127.0.0.1:${env.PORT}`)).toBe(false);
    },
    120_000,
  );

  it('stops on SIGHUP, as when its terminal closes', async () => {
    const env = {
      PORT: String(await findFreePort()),
      GLEANER_DATA_DIR: join(dataDir, 'sighup'),
      GLEANER_ENRICHMENT: 'off',
    };
    const run = start(env);
    await waitFor(() => run.output().includes('Stop with Ctrl-C'));
    const state = readState(env.GLEANER_DATA_DIR);
    run.child.kill('SIGHUP');
    expect(await run.exited).toBe(0);
    expect(isAlive(state.dynamoPid)).toBe(false);
  }, 120_000);

  it('stops DynamoDB Local too when SIGTERM comes while it is still starting', async () => {
    const env = {
      PORT: String(await findFreePort()),
      GLEANER_DATA_DIR: join(dataDir, 'sigterm-starting'),
      GLEANER_ENRICHMENT: 'off',
    };
    const run = start(env);
    // Java is running but the banner is not out yet: DynamoDB Local takes seconds to answer.
    await waitFor(() => dynamoDbLocalsServing(env.GLEANER_DATA_DIR).length > 0);
    const [starting] = dynamoDbLocalsServing(env.GLEANER_DATA_DIR);
    expect(run.output()).not.toContain('Stop with Ctrl-C');
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(isAlive(starting!)).toBe(false);
    expect(run.stderr()).not.toContain('could not start');
  }, 120_000);

  it('stops the DynamoDB Local a killed (kill -9) start left behind on its data folder, then starts', async () => {
    const env = { GLEANER_DATA_DIR: join(dataDir, 'orphan'), GLEANER_ENRICHMENT: 'off' };
    const killed = start({ ...env, PORT: String(await findFreePort()) });
    await waitFor(() => killed.output().includes('Stop with Ctrl-C'));
    const orphan = readState(env.GLEANER_DATA_DIR).dynamoPid;
    killed.child.kill('SIGKILL');
    await killed.exited;
    expect(isAlive(orphan)).toBe(true);

    const next = start({ ...env, PORT: String(await findFreePort()) });
    await waitFor(() => next.output().includes('Stop with Ctrl-C'));
    expect(next.stderr()).toContain(`stopping DynamoDB Local (pid ${orphan}) left running on ${env.GLEANER_DATA_DIR}`);
    expect(isAlive(orphan)).toBe(false);
    expect(JSON.parse(await runPrintedCurl(next.output()))).toMatchObject({ bookmark: { title: 'Serverless notes' } });
    next.child.kill('SIGINT');
    expect(await next.exited).toBe(0);
  }, 120_000);

  it('says what PORT must be when it is not a port', async () => {
    for (const port of ['abc', '70000', '0']) {
      const run = start({ PORT: port, GLEANER_DATA_DIR: join(dataDir, 'badport') });
      expect(await run.exited).toBe(1);
      expect(run.stderr()).toContain(`PORT must be a whole number from 1 to 65535 (got "${port}")`);
    }
  });

  it('says Java 17 or newer is needed, and which version it found, when Java is too old', async () => {
    // A stand-in for Java 11: what it prints when asked to run DynamoDB Local's Java 17 classes.
    const oldJava = mkdtempSync(join(tmpdir(), 'gleaner-old-java-'));
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
    const emptyPath = mkdtempSync(join(tmpdir(), 'gleaner-no-java-'));
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
