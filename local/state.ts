import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Where `npm start` keeps its data, and what it tells the `gleaner` CLI about itself while running. */

export interface LocalStackState {
  readonly pid: number;
  readonly baseUrl: string;
  /** The web app's address (the same server by name, for passkeys). */
  readonly webBaseUrl?: string;
  readonly dynamoEndpoint: string;
  /** The process id of the DynamoDB Local that `npm start` runs, for an operator (or a test) who needs it. */
  readonly dynamoPid?: number;
  readonly tableName: string;
}

export const LOCAL_TABLE_NAME = 'gleaner-local';

export function dataDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.GLEANER_DATA_DIR || '.gleaner');
}

/** The search index of the local stack: a LanceDB folder beside DynamoDB Local's data. */
export function searchIndexFolder(dataDir: string): string {
  return join(dataDir, 'search');
}

const statePath = (dataDir: string) => join(dataDir, 'local-stack.json');

export function writeLocalState(dataDir: string, state: LocalStackState): void {
  writeFileSync(statePath(dataDir), `${JSON.stringify(state, null, 2)}\n`);
}

export function removeLocalState(dataDir: string): void {
  rmSync(statePath(dataDir), { force: true });
}

/** The running local stack's state, or null when none is running (a stale file is ignored). */
export function readLocalState(dataDir: string): LocalStackState | null {
  if (!existsSync(statePath(dataDir))) return null;
  const state = JSON.parse(readFileSync(statePath(dataDir), 'utf8')) as LocalStackState;
  return isAlive(state.pid) ? state : null;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
