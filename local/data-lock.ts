import { execFileSync } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
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
      if (holder !== null && isAlive(holder)) {
        throw new DataFolderInUseError(
          `${dataDir} is in use by another npm start (pid ${holder}). Stop that one first, or give this one its own folder: GLEANER_DATA_DIR=/some/other/folder npm start`,
        );
      }
      // Left by a start that was killed: take it over.
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
 * DynamoDB Local processes serving `dataDir`: after `kill -9` of `npm start` its Java child keeps
 * running (a killed parent cannot stop it). Found by the `-dbPath` argument it was started with.
 */
export function dynamoDbLocalsServing(dataDir: string): number[] {
  let listing: string;
  try {
    listing = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  } catch {
    return []; // no `ps`: nothing to find; a leftover then shows as DynamoDB Local failing to start
  }
  return listing
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .filter(([, , args]) => args!.includes('DynamoDBLocal.jar') && ` ${args} `.includes(` -dbPath ${dataDir} `))
    .map(([, pid]) => Number(pid));
}
