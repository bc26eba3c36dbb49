import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from './state';

/**
 * One `npm start` per data folder. Two DynamoDB Local processes on one database file corrupt each
 * other's view, and the second start's exit would delete the first one's state file.
 */
export class DataFolderInUseError extends Error {}

export interface DataFolderLock {
  release(): void;
}

const lockPath = (dataDir: string) => join(dataDir, 'npm-start.lock');

/** Takes the data folder for this process, or throws DataFolderInUseError naming the holder. */
export function lockDataFolder(dataDir: string, pid = process.pid): DataFolderLock {
  mkdirSync(dataDir, { recursive: true });
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lockPath(dataDir), 'wx');
      writeSync(fd, `${pid}\n`);
      closeSync(fd);
      return { release: () => releaseIfOwned(dataDir, pid) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      const holder = lockHolder(dataDir);
      if (holder !== null && holder !== pid && isNpmStart(holder)) {
        throw new DataFolderInUseError(
          `${dataDir} is in use by another npm start (pid ${holder}). Stop that one first, or give this one its own folder: GLEANER_DATA_DIR=/some/other/folder npm start`,
        );
      }
      // Left by a start that was killed (its pid gone, or reused by another program): take it over.
      rmSync(lockPath(dataDir), { force: true });
    }
  }
}

function lockHolder(dataDir: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(lockPath(dataDir), 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function releaseIfOwned(dataDir: string, pid: number): void {
  if (lockHolder(dataDir) === pid) rmSync(lockPath(dataDir), { force: true });
}

/**
 * Whether `pid` is a running `npm start`. After a reboot or in a fresh container a dead start's pid
 * is soon another program's, or this very process's, and must not keep the folder locked.
 */
function isNpmStart(pid: number): boolean {
  if (!isAlive(pid)) return false;
  const lines = commandLines();
  // Without `ps` any live process counts: better a refusal than two starts on one folder.
  return lines === null || (lines.get(pid)?.includes(START_SCRIPT) ?? false);
}

const START_SCRIPT = 'local/start.ts';

/**
 * DynamoDB Local processes serving `dataDir`: after `kill -9` of `npm start` its Java child keeps
 * running (a killed parent cannot stop it). Found by the `-dbPath` argument it was started with.
 */
export function dynamoDbLocalsServing(dataDir: string): number[] {
  // Without `ps` there is nothing to find; a leftover then shows as DynamoDB Local failing to start.
  return [...(commandLines() ?? new Map<number, string>())]
    .filter(([, args]) => args.includes('DynamoDBLocal.jar') && ` ${args} `.includes(` -dbPath ${dataDir} `))
    .map(([pid]) => pid);
}

/** Every process's command line by pid, or null when there is no `ps` to ask. */
function commandLines(): Map<number, string> | null {
  let listing: string;
  try {
    listing = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  } catch {
    return null;
  }
  return new Map(
    listing
      .split('\n')
      .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
      .filter((match): match is RegExpExecArray => match !== null)
      .map(([, pid, args]) => [Number(pid), args!]),
  );
}
