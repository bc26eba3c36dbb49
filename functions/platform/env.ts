/** The environment a handler is configured from: `process.env` in Lambda, an explicit object locally. */
export type Environment = Record<string, string | undefined>;

export function requireEnv(env: Environment, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`Environment variable ${name} is not set`);
  return value;
}

/** A whole-number setting (0 or more); `fallback` when unset or not a whole number. */
export function integerSetting(env: Environment, name: string, fallback: number): number {
  const value = Number(env[name]);
  return env[name] && Number.isInteger(value) && value >= 0 ? value : fallback;
}

/**
 * Builds the real handler on its first invocation, from `process.env`. Lambda has the environment
 * from the start; deferring lets the local stack import the module and build handlers from its own
 * environment object instead.
 */
export function deferred<H extends (...args: never[]) => unknown>(build: () => H): H {
  let built: H | undefined;
  return ((...args: Parameters<H>) => (built ??= build())(...args)) as H;
}
