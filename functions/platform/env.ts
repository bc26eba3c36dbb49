/** The environment a handler is configured from: `process.env` in Lambda, an explicit object locally. */
export type Environment = Record<string, string | undefined>;

/**
 * Builds the real handler on its first invocation, from `process.env`. Lambda has the environment
 * from the start; deferring lets the local stack import the module and build handlers from its own
 * environment object instead.
 */
export function deferred<H extends (...args: never[]) => unknown>(build: () => H): H {
  let built: H | undefined;
  return ((...args: Parameters<H>) => (built ??= build())(...args)) as H;
}
