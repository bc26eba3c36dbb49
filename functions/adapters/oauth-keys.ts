import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { generateOAuthKeys, type OAuthKeys, parseOAuthKeys } from '../core/identity/oauth-keys';
import type { Environment } from '../platform/env';
import { setting, settings } from '../platform/settings';

/**
 * Loads the authorization server's keys: from the file OAUTH_KEYS_FILE names (the local stack), else
 * from the Secrets Manager secret OAUTH_KEYS_SECRET_ARN names. Either starts empty: the first start
 * generates the keys and stores them, and every later start reads the same ones.
 */
export async function loadOAuthKeys(env: Environment): Promise<OAuthKeys> {
  const file = setting(env, settings.oauthKeysFile);
  if (file) {
    const stored = existsSync(file) ? parseOAuthKeys(readFileSync(file, 'utf8')) : null;
    if (stored) return stored;
    const keys = generateOAuthKeys();
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(keys)}\n`, { mode: 0o600 });
    return keys;
  }
  const secretId = setting(env, settings.oauthKeysSecret);
  if (!secretId) throw new Error('Set OAUTH_KEYS_SECRET_ARN (deployed) or OAUTH_KEYS_FILE (local) for the OAuth keys');
  // Loaded here, once per cold start, rather than at every function's init.
  const { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } = await import(
    '@aws-sdk/client-secrets-manager'
  );
  const client = new SecretsManagerClient({ region: process.env.AWS_REGION ?? 'us-east-1' });
  const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  const stored = parseOAuthKeys(SecretString);
  if (stored) return stored;
  const keys = generateOAuthKeys();
  await client.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: JSON.stringify(keys) }));
  return keys;
}
